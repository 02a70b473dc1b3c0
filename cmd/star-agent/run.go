package main

// SCAFFOLDING: the agent helper replaces this file with the real command.

import "github.com/spf13/cobra"

func newRunCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "run [flags] TASK",
		Short: "Run an agent on a task (not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageError("run is not implemented yet")
		},
	}
}
