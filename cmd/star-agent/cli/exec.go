package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/pyvalue"
)

type execFlags struct {
	json    bool
	exec    ExecutorFlags
	tools   ToolFlags
	imports []string
	limits  LimitFlags
}

func newExecCmd() *cobra.Command {
	var f execFlags
	cmd := &cobra.Command{
		Use:   "exec [flags] FILE... | -",
		Short: "Run code files as consecutive agent steps, in one sandbox",
		Long: `exec runs Python code files in the Starlark engine, in order and in one
executor, so that variables and functions defined by one file are visible to
the next, as in consecutive steps of an agent. A file that fails does not stop
the ones after it; a file that calls final_answer ends the run. "-" reads the
code from standard input.

Without --json, the program's output is printed as it is produced, then
"Final answer: <value>" if the code gave one; errors go to standard error in
the words the model would see. With --json, one JSON object per file:

  {"stdout": str, "final_answer": <value>|null, "repr": str|null,
   "is_final": bool, "error": null|{"type": str, "message": str, "line": int},
   "engine": "starlark", "steps": int, "duration_ms": number}

"repr" is Python's repr() of the final answer. "final_answer" is its JSON
form (docs/json.md): floats keep their fraction (32.0); what JSON has no
word for is a one-key object: {"$float": "nan"|"inf"|"-inf"},
{"$tuple": [...]}, {"$set": [...]}, {"$frozenset": [...]},
{"$bytes": base64}, {"$int": "digits"} for integers beyond ±2^53,
{"$dict": [[key, value], ...]} for a dict with keys that are not all
strings (in order), {"$datetime"|"$date"|"$time": ISO 8601},
{"$timedelta": [days, seconds, microseconds]}, and
{"$repr": str, "type": str} for any other object. "steps" counts
interpreter operations.

With --executor wasm, code can also run in CPython 3.11 compiled to
WebAssembly, in process: --engine python sends every file there, and
--engine auto (the default with --executor) runs each file in the Starlark
engine unless it needs CPython (an import only CPython has, syntax the
Starlark engine cannot run), carrying variables between the two; "engine" in
the JSON output says which ran ("starlark" or "python:wasm").

The Starlark engine runs in a child process of star-agent (--isolation
process, the default) under OS memory and CPU limits: code that crashes the
engine, outruns the time limit inside a builtin or escapes the engine's
memory accounting is killed with its process, star-agent reports it as the
file's error and the next file runs in a fresh process (variables defined
before are then gone). --isolation none runs the engine in star-agent itself.

Limits: each file may run for --exec-timeout (30s) of wall-clock time, which
stops any runaway loop preemptively, and up to --max-operations interpreter
operations (` + FormatCount(executors.DefaultMaxOperations) + ` by default, several times what the
engine does in 30 s: ordinary computations finish, and runaway code meets
the time limit first). The limit flags (--exec-timeout, --max-operations,
--max-memory, --max-output, --max-value) have the same names, meanings and
defaults on run and serve, where each step's code is one execution.
--imports adds importable modules; those that reach the host (os, sys,
subprocess, ...) are refused unless --engine python.

Exit status: 0 when every file ran without error, 1 when user code failed,
2 for usage or configuration errors (unreadable file, bad flag).`,
		Example: `  star-agent exec step1.py step2.py
  echo 'print(2 ** 10)' | star-agent exec -
  star-agent exec --json --exec-timeout 5s --max-memory 64MiB bomb.py
  star-agent exec --max-operations 1000000 untrusted.py`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("exec needs at least one FILE, or - for standard input\nRun 'star-agent exec --help' for usage.")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExec(cmd, f, args)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.json, "json", false, "print one JSON object per executed file (JSON lines)")
	f.exec.Register(fl)
	f.tools.Register(fl)
	fl.StringSliceVar(&f.imports, "imports", nil, "additional authorized imports, comma-separated (e.g. numpy,pandas); modules that reach the host (os, sys, ...) only with --engine python")
	f.limits.Register(fl, "exec")
	return cmd
}

type execFile struct {
	name string
	code string
}

func runExec(cmd *cobra.Command, f execFlags, args []string) error {
	limits, err := f.limits.Limits(cmd.Flags(), cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if err := f.exec.CheckImports(f.imports); err != nil {
		return usageError("%v", err)
	}
	// Read every file first: a missing file is a usage error, and nothing
	// should have run when it is reported.
	var files []execFile
	for _, name := range args {
		var data []byte
		if name == "-" {
			data, err = io.ReadAll(cmd.InOrStdin())
		} else {
			data, err = os.ReadFile(name)
		}
		if err != nil {
			return usageError("cannot read %s: %v", name, err)
		}
		files = append(files, execFile{name: name, code: string(data)})
	}
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	var live io.Writer
	if !f.json {
		live = stdout
	}
	ex, err := f.exec.Open(limits, f.imports, live)
	if err != nil {
		return usageError("%v", err)
	}
	defer ex.Close()

	// SIGTERM too: the deferred Close must run, so that no sandbox
	// process outlives the command.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Code read from files leaves standard input to user_input.
	var stdin io.Reader
	if !slices.Contains(args, "-") {
		stdin = cmd.InOrStdin()
	}
	tools, closeTools, err := f.tools.Open(ctx, ToolEnv{Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), Stdin: stdin, Stdout: stderr})
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	defer closeTools()
	if len(tools) > 0 {
		if err := ex.SetTools(ctx, tools); err != nil {
			return &ExitError{Code: 2, Err: err}
		}
	}
	failed := false
	for _, file := range files {
		res, err := ex.Execute(ctx, file.code)
		if err != nil && res.Err == nil {
			// A broken executor never reads as a success with empty
			// output: the file's result says it did not run.
			res.Err = &executors.ExecError{Type: "SystemError", Message: fmt.Sprintf("this file did not run to its end: %v", err)}
		}
		if f.json {
			if werr := writeJSONResult(stdout, res); werr != nil {
				return werr
			}
		} else {
			writeTextResult(stdout, stderr, file.name, res, len(files) > 1)
		}
		if err != nil {
			if ctx.Err() != nil {
				// SIGINT or SIGTERM: the status a shell gives an
				// interrupted command, as run does.
				return &ExitError{Code: 130, Err: fmt.Errorf("interrupted: %w", err)}
			}
			return &ExitError{Code: 1, Err: err}
		}
		if res.Err != nil {
			failed = true
		}
		if res.IsFinal {
			break
		}
	}
	if failed {
		return &ExitError{Code: 1}
	}
	return nil
}

type jsonError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Line    int    `json:"line"`
	// Hint is for the operator: how a change of configuration would let
	// the code run (executors.ExecError.Hint).
	Hint string `json:"hint,omitempty"`
}

type jsonResult struct {
	Stdout string `json:"stdout"`
	// FinalAnswer is in pyvalue.Marshal's form (docs/json.md); nil
	// when there is no final answer.
	FinalAnswer *pyvalue.JSON `json:"final_answer"`
	// Repr is Python's repr() of the final answer.
	Repr       *string    `json:"repr"`
	IsFinal    bool       `json:"is_final"`
	Error      *jsonError `json:"error"`
	Engine     string     `json:"engine"`
	Steps      uint64     `json:"steps"`
	DurationMS float64    `json:"duration_ms"`
	Notes      []string   `json:"notes,omitempty"`
}

func writeJSONResult(w io.Writer, res executors.Result) error {
	out := jsonResult{
		Stdout:     res.Stdout,
		IsFinal:    res.IsFinal,
		Engine:     res.Engine,
		Steps:      res.Steps,
		DurationMS: float64(res.Duration.Microseconds()) / 1000,
		Notes:      res.Notes,
	}
	if res.IsFinal {
		out.FinalAnswer = &pyvalue.JSON{V: res.Value}
		repr := res.Repr
		if repr == "" {
			repr = pyvalue.Repr(res.Value)
		}
		out.Repr = &repr
	}
	if res.Err != nil {
		out.Error = &jsonError{Type: res.Err.Type, Message: res.Err.Message, Line: res.Err.Line, Hint: res.Err.Hint}
	}
	data, err := marshalLine(out)
	if err != nil && out.FinalAnswer != nil {
		// Not in the budget of the JSON form: the repr stands for it.
		out.FinalAnswer = &pyvalue.JSON{V: *out.Repr}
		data, err = marshalLine(out)
	}
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	_, err = w.Write(data)
	return err
}

// marshalLine is v as one line of JSON, "<", ">" and "&" as they are.
func marshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b.Bytes(), err
}

func writeTextResult(stdout, stderr io.Writer, name string, res executors.Result, several bool) {
	if res.Engine != starlarkexec.Engine {
		// Only the Starlark engine streams output as it is printed.
		fmt.Fprint(stdout, res.Stdout)
	} else if res.Truncated {
		// The live copy stops after the head; the marker and the tail
		// come at the end.
		if i := strings.LastIndex(res.Stdout, "\n[output truncated"); i >= 0 {
			fmt.Fprint(stdout, res.Stdout[i:])
		}
	}
	for _, note := range res.Notes {
		fmt.Fprintf(stderr, "note: %s\n", note)
	}
	if res.IsFinal {
		fmt.Fprintf(stdout, "Final answer: %s\n", displayValue(res))
	}
	if res.Err != nil {
		prefix := ""
		if several {
			prefix = name + ": "
		}
		fmt.Fprintf(stderr, "%s%s\n", prefix, res.Err.Describe())
		if res.Err.Hint != "" {
			// Addressed to whoever runs the command, not to a model.
			fmt.Fprintf(stderr, "hint: %s\n", res.Err.Hint)
		}
	}
}

// displayValue renders a final answer as print() would: strings bare,
// anything else as Python's repr.
func displayValue(res executors.Result) string {
	if s, ok := res.Value.(string); ok {
		return s
	}
	return res.Repr
}
