package main

import "github.com/spf13/cobra"

func newExecCmd() *cobra.Command {
	return &cobra.Command{Use: "exec", RunE: func(*cobra.Command, []string) error { return usageError("soon") }}
}
