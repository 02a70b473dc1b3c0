package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/executors"
)

// LimitFlags are the limits of each code execution: one set, with the same
// names, meanings and defaults on run, exec and serve, read into the one
// description of them, executors.Limits. The agent cuts what the model
// reads of a step's output at the same --max-output the executor keeps.
// The limit of a whole run is not among them: run and serve spell it
// --run-timeout.
type LimitFlags struct {
	ExecTimeout   time.Duration
	MaxOperations uint64
	MaxMemory     string
	MaxOutput     int
	MaxValue      string

	cmd        string // the command that registered the flags
	oldTimeout string // its old name of --exec-timeout: "timeout" on exec, "step-timeout" on run and serve
	maxSteps   uint64 // exec's deprecated --max-steps, the old --max-operations
}

// Register adds the limit flags to fl. cmd is the command's name: each
// command keeps the old spelling it had as a deprecated alias (exec
// --timeout and --max-steps; run and serve --step-timeout).
func (f *LimitFlags) Register(fl *pflag.FlagSet, cmd string) {
	f.cmd = cmd
	fl.DurationVar(&f.ExecTimeout, "exec-timeout", executors.DefaultTimeout, "wall-clock limit of each code execution (one step's code; on exec, one file): it stops runaway code preemptively; --run-timeout limits a whole run")
	fl.Uint64Var(&f.MaxOperations, "max-operations", executors.DefaultMaxOperations, fmt.Sprintf("interpreter operations allowed per code execution in the Starlark engine (%s by default, several times what the engine does in 30s: --exec-timeout stops runaway loops first)", formatCount(executors.DefaultMaxOperations)))
	fl.StringVar(&f.MaxMemory, "max-memory", "256MiB", "memory limit of each code execution (e.g. 64MiB, 1GiB, or bytes)")
	fl.IntVar(&f.MaxOutput, "max-output", executors.DefaultMaxOutput, "printed characters kept per code execution, and shown to the model (head and tail, with a marker for what was cut)")
	fl.StringVar(&f.MaxValue, "max-value", "1MiB", "largest final answer or last value kept per code execution, as JSON (e.g. 64KiB, 1MiB, or bytes); a bigger one comes back as its shortened repr with a note")
	switch cmd {
	case "exec":
		f.oldTimeout = "timeout"
		fl.Uint64Var(&f.maxSteps, "max-steps", 0, "deprecated: the old name of --max-operations")
		fl.MarkHidden("max-steps")
	case "run", "serve":
		f.oldTimeout = "step-timeout"
	}
	if f.oldTimeout != "" {
		fl.DurationVar(&f.ExecTimeout, f.oldTimeout, executors.DefaultTimeout, "the old name of --exec-timeout")
		fl.MarkHidden(f.oldTimeout)
	}
}

// Limits checks the flags and returns the limits they describe. Its
// errors are usage errors (*ExitError with Code 2). A deprecated spelling
// still works, with a warning written to stderr.
func (f *LimitFlags) Limits(fl *pflag.FlagSet, stderr io.Writer) (executors.Limits, error) {
	var l executors.Limits
	warn := func(msg string) { fmt.Fprintln(stderr, "star-agent: warning:", msg) }
	if f.oldTimeout != "" && fl.Changed(f.oldTimeout) {
		warn(fmt.Sprintf("--%s is deprecated: use --exec-timeout, the same limit of each code execution", f.oldTimeout))
	}
	if f.cmd == "exec" && fl.Changed("max-steps") {
		// run's --max-steps counts agent steps; exec's counted
		// operations, which --max-operations now names.
		if fl.Changed("max-operations") && f.maxSteps != f.MaxOperations {
			return l, usageError("--max-steps is the old name of --max-operations: give only --max-operations")
		}
		warn("exec --max-steps is deprecated, use --max-operations (on run, --max-steps counts agent steps)")
		f.MaxOperations = f.maxSteps
	}
	if f.ExecTimeout <= 0 || f.MaxOperations == 0 || f.MaxOutput <= 0 {
		return l, usageError("--exec-timeout, --max-operations and --max-output must be positive")
	}
	mem, err := parseBytes(f.MaxMemory)
	if err != nil {
		return l, usageError("--max-memory: %v", err)
	}
	maxValue, err := parseBytes(f.MaxValue)
	if err != nil {
		return l, usageError("--max-value: %v", err)
	}
	return executors.Limits{Timeout: f.ExecTimeout, MaxOperations: f.MaxOperations, MaxMemory: mem, MaxOutput: f.MaxOutput, MaxValue: maxValue}, nil
}
