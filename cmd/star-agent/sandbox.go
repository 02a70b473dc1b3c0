package main

import "github.com/spf13/cobra"

// newSandboxCmd returns "star-agent sandbox", which manages the Docker
// executor's images and leftovers.
func newSandboxCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "sandbox",
		Short:  "Build and clean up the Docker sandbox's images and containers",
		Hidden: true,
	}
}
