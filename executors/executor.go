// Package executors defines the Executor contract that runs one code action
// of an agent, and the limits and import policy every executor shares.
//
// Implementations live in subpackages: starlarkexec (the Starlark engine
// with a Python front end, in process), isolation (an in-process engine in
// a child process under OS limits), and the full-Python executors (wasm,
// docker, e2b, modal) that speak the runner protocol. An Executor keeps state (variables,
// functions) across Execute calls; a failure of the user's code is a Result
// with Err set, never a Go error.
package executors

import (
	"context"
	"fmt"
	"time"

	"github.com/star-agent/star-agent/tool"
)

// Executor runs code actions and keeps their state between calls.
type Executor interface {
	// Execute runs code. The error is for a broken executor (a sandbox that
	// cannot be reached); a failure of the code itself is Result.Err.
	Execute(ctx context.Context, code string) (Result, error)
	// SetTools makes tools (and managed agents) callable from the code.
	// ctx bounds telling a sandbox that is already running: when it ends,
	// the call returns promptly with ctx's error.
	SetTools(ctx context.Context, tools []tool.Tool) error
	// SetVariables hands values to the code as global variables; ctx is
	// as for SetTools.
	SetVariables(ctx context.Context, vars map[string]any) error
	// Close releases the executor's resources.
	Close() error
}

// Result is the outcome of one Execute call.
type Result struct {
	// Stdout is what the code printed, capped at Limits.MaxOutput characters.
	Stdout string
	// Truncated reports that Stdout was cut (a marker is in Stdout too).
	Truncated bool
	// Value is the final answer when IsFinal, else the value of the last
	// expression statement (nil if none), as a JSON-shaped Go value.
	Value any
	// Repr is Value as Python's repr() shows it ("" when there is no value).
	Repr string
	// IsFinal reports that the code called final_answer.
	IsFinal bool
	// Err is the exception that ended the code, if any.
	Err *ExecError
	// Engine names what ran the code: "starlark", "python:wasm", ...
	Engine string
	// Steps counts interpreter steps (0 where the engine cannot count them).
	Steps uint64
	// Duration covers parsing, compiling and running.
	Duration time.Duration
	// Imports lists the modules the code imported.
	Imports []string
	// Notes are messages from the executor for the model, such as variables
	// that could not move between engines or a sandbox that was restarted.
	Notes []string
}

// ExecError is an exception raised by user code, with Python's names.
type ExecError struct {
	Type    string // Python exception type, e.g. "KeyError"
	Message string
	Line    int    // 1-based line in the code, 0 if unknown
	Source  string // the text of that line
	// Traceback is Python-style call stack text, when available.
	Traceback string
	// NeedsPython marks code this engine cannot run but full Python could
	// (an authorized import only CPython has, syntax the front end cannot
	// lower). A router sends such code to a Python executor.
	NeedsPython bool
	// Hint is addressed to the operator, the person who configures the
	// run, never to the model: how a change of configuration would let
	// such code run (an import to authorize, a Python executor to
	// configure), in the words of the star-agent CLI. The model can act
	// on neither, so Error and Describe leave it out and Message says only
	// what the code can do instead; the CLI prints Hint to stderr as
	// "hint: ...", and the agent logs it. "" when there is none.
	Hint string
}

func (e *ExecError) Error() string {
	if e.Message == "" {
		return e.Type
	}
	return e.Type + ": " + e.Message
}

// Limits bound one execution. The zero value of a field means its default.
type Limits struct {
	// MaxOperations bounds interpreter operations (the CLI's --max-operations);
	// default 10,000,000,000, more than any code does within the default
	// Timeout, so that Timeout is what stops runaway code.
	MaxOperations uint64

	Timeout   time.Duration // wall time, less waits for a person (clock.go); default 30 s
	MaxMemory int64         // bytes; default 256 MiB
	MaxOutput int           // printed characters kept; default 50,000
	MaxDepth  int           // call depth; default 200
	// MaxValue bounds a value an execution returns (a final answer, the
	// value of the last expression) as JSON, in bytes; default 1 MiB. A
	// larger value is returned as the start of its repr, with a note.
	MaxValue int64
}

// Default limits. DefaultMaxOperations leaves the guard against runaway code
// to the preemptive DefaultTimeout: the Starlark engine ran about 55
// million operations a second where it was measured (while True: pass),
// 1.6 billion in 30 s, while ordinary work needs far less than
// the limit (a loop of a million additions takes 12 million operations, a
// sieve of Eratosthenes to 2,000,000 48 million, the Collatz lengths of
// every n under 10,000 22 million).
const (
	DefaultMaxOperations = 10_000_000_000
	DefaultTimeout       = 30 * time.Second
	DefaultMaxMemory     = 256 << 20
	DefaultMaxOutput     = 50_000
	DefaultMaxDepth      = 200
	DefaultMaxValue      = 1 << 20
)

// WithDefaults returns l with zero fields set to their defaults.
func (l Limits) WithDefaults() Limits {
	if l.MaxOperations == 0 {
		l.MaxOperations = DefaultMaxOperations
	}
	if l.Timeout == 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxMemory == 0 {
		l.MaxMemory = DefaultMaxMemory
	}
	if l.MaxOutput == 0 {
		l.MaxOutput = DefaultMaxOutput
	}
	if l.MaxDepth == 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxValue == 0 {
		l.MaxValue = DefaultMaxValue
	}
	return l
}

// Validate reports limits that cannot work.
func (l Limits) Validate() error {
	if l.Timeout < 0 || l.MaxMemory < 0 || l.MaxOutput < 0 || l.MaxDepth < 0 || l.MaxValue < 0 {
		return fmt.Errorf("limits must not be negative: %+v", l)
	}
	if l.MaxMemory != 0 && l.MaxMemory < 1<<20 {
		return fmt.Errorf("max memory %d bytes is below the minimum of 1 MiB", l.MaxMemory)
	}
	return nil
}

// Describe renders the error in the words the model sees (those of
// smolagents), for observations and for the CLI:
//
//	Code execution failed at line 'x = d["k"]' due to: KeyError: 'k'
//	Code parsing failed on line 3 due to: SyntaxError: invalid syntax
func (e *ExecError) Describe() string {
	if e.Type == "SyntaxError" || e.Type == "IndentationError" || e.Type == "TabError" {
		s := fmt.Sprintf("Code parsing failed on line %d due to: %s", e.Line, e.Error())
		if e.Source != "" {
			s += "\n" + e.Source
		}
		return s
	}
	if e.Source != "" {
		return fmt.Sprintf("Code execution failed at line '%s' due to: %s", e.Source, e.Error())
	}
	return "Code execution failed due to: " + e.Error()
}

// SyntaxChecker is implemented by executors that can tell, without running
// it, whether code is Python at all. The agent uses it to accept a model
// output that is a bare program, written without a code block; with an
// executor that does not implement it, such an output is not code.
type SyntaxChecker interface {
	// CheckSyntax returns nil when code parses as Python, including Python
	// this executor could not run (Execute reports that). Otherwise it
	// returns an *ExecError whose Type is "SyntaxError", "IndentationError"
	// or "TabError", with Line and Source set where known, so that its
	// Describe is what the model would be shown:
	//
	//	Code parsing failed on line 2 due to: SyntaxError: invalid syntax
	CheckSyntax(code string) error
}

// StateExporter is implemented by executors whose variables can be read
// back, so that a router can carry state from one engine to another.
type StateExporter interface {
	// Variables returns the code's global variables that are representable
	// as JSON-shaped values, and for those that are not, why (by name).
	Variables(ctx context.Context) (vars map[string]any, skipped map[string]string, err error)
}
