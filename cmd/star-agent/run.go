package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/star-agent/star-agent/cmd/star-agent/cli"
)

// newRunCmd returns "star-agent run", which package cli implements so that
// agenttest can build the same command around a user's tools.
func newRunCmd() *cobra.Command {
	cmd := cli.NewRunCommand(cli.Config{})
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
