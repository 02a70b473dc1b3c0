// Command star-agent runs code agents whose actions are Python, executed in
// a sandboxed Starlark engine or a full-Python sandbox.
//
// Usage:
//
//	star-agent exec [flags] FILE... | -     run code files as agent steps would
//	star-agent run  [flags] TASK            run an agent on a task
//	star-agent serve [flags]                 run agents as an HTTP service with a web page
//	star-agent sandbox image build|prune     build or clean up the Docker sandbox's image
//
// Run "star-agent help COMMAND" for the flags of each command.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/star-agent/star-agent/executors/isolation"
	"github.com/star-agent/star-agent/executors/wasm"
	"github.com/star-agent/star-agent/internal/gctune"
)

// exitError carries a process exit status out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

// usageError marks an error in the command line or configuration (exit 2).
func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
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
		Version:       version(),
	}
	root.SetVersionTemplate("star-agent {{.Version}}\n")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		//lint:ignore ST1005 printed as is: the usage hint is the message's last sentence
		return &exitError{code: 2, err: fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())}
	})
	root.AddCommand(newExecCmd(), newRunCmd(), newServeCmd(), newSandboxCmd())
	return root
}

// run executes the CLI and returns its exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "star-agent:", ee.err)
		}
		return ee.code
	}
	// Errors from cobra itself (unknown command, bad flag) are usage errors.
	fmt.Fprintln(stderr, "star-agent:", err)
	return 2
}

func main() {
	// Sandbox and engine children are copies of this program: they take
	// over here, before anything else runs. The collector's default
	// (gctune) is for the Starlark engine, in this process and in its
	// isolated children (whose soft memory limit, set from their budget,
	// then replaces the default's); the WebAssembly sandbox's child keeps
	// Go's own, as its heap is mostly the sandbox's linear memory.
	wasm.RunChildIfRequested()
	gctune.Apply()
	isolation.RunChildIfRequested()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// version describes the build for --version: the module version, the
// VCS commit and its time (with "modified" when the tree had uncommitted
// changes), and the Go version, as the Go toolchain stamped them.
func version() string {
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
