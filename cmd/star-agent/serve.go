package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/star-agent/star-agent/cmd/star-agent/cli"
)

// newServeCmd returns "star-agent serve", agents as an HTTP service, which
// package cli implements next to run, whose flags it shares.
func newServeCmd() *cobra.Command {
	cmd := cli.NewServeCommand()
	runE := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		err := runE(c, args)
		if ee, ok := errors.AsType[*cli.ExitError](err); ok {
			return &exitError{code: ee.Code, err: ee.Err}
		}
		return err
	}
	return cmd
}
