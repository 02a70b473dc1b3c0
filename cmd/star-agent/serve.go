package main

import "github.com/spf13/cobra"

// newServeCmd returns "star-agent serve", agents as an HTTP service.
func newServeCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "serve",
		Short:  "Run agents as an HTTP service with a web page",
		Hidden: true,
	}
}
