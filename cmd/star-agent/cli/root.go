package cli

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// NewRootCommand returns the star-agent command with its subcommands: run
// (built with cfg), exec, serve, mcp and sandbox.
func NewRootCommand(cfg Config, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "star-agent",
		Short: "A code agent whose actions are Python, run in a sandbox you can trust",
		Long: `star-agent runs code agents: a language model writes each action as Python,
and star-agent executes it in an embedded, step-, time- and memory-limited
Starlark engine whose builtins are the agent's tools. Code that needs real
CPython is routed to a full-Python sandbox.

Garbage collection: star-agent runs Go's collector at GOGC=400 while the
live heap is small, easing to Go's default of 100 as it grows to 128 MiB,
with a soft memory limit of 75% of the memory it may use (its cgroup's
limit, else the machine's RAM): an agent's steps make much short-lived
garbage on a small heap, and a typical step then costs 10-25% less CPU time
than at GOGC=100. Set GOGC or GOMEMLIMIT in the environment to choose
otherwise; each one set wins.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion(),
	}
	root.SetVersionTemplate("star-agent {{.Version}}\n")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		//lint:ignore ST1005 printed as is: the usage hint is the message's last sentence
		return &ExitError{Code: 2, Err: fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())}
	})
	root.AddCommand(newExecCmd(), NewRunCommand(cfg), NewServeCommand(), newMCPCmd(), newSandboxCmd())
	return root
}

// Run executes the star-agent command line args (without the program's
// name) and returns the exit status: 0 on success, 1 for a failed run or
// file, 2 for a usage error, 130 when interrupted. Errors are printed to
// stderr.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, cfg Config) int {
	root := NewRootCommand(cfg, stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintln(stderr, "star-agent:", ee.Err)
		}
		return ee.Code
	}
	// Errors from cobra itself (unknown command, bad flag) are usage errors.
	fmt.Fprintln(stderr, "star-agent:", err)
	return 2
}

// buildVersion describes the build for --version: the module version, the
// VCS commit and its time (with "modified" when the tree had uncommitted
// changes), and the Go version, as the Go toolchain stamped them.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown: built without module support)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev != "" {
		v += "\ncommit " + rev
		if at != "" || modified != "" {
			v += " (" + strings.TrimPrefix(at+modified, ", ") + ")"
		}
	}
	return v + "\n" + bi.GoVersion
}
