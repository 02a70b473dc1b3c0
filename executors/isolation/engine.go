package isolation

import (
	"context"
	"io"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/tool"
)

var (
	_ executors.Executor      = (*Executor)(nil)
	_ executors.StateExporter = (*Executor)(nil)
	_ executors.SyntaxChecker = (*Executor)(nil)
)

// Engine is what the child needs of the in-process engine it runs: an
// executor that exports its state and says when work it abandoned at a
// deadline still runs. *starlarkexec.Executor is one.
type Engine interface {
	executors.Executor
	executors.StateExporter
	// Abandoned reports whether work of an execution the engine gave up
	// on at its deadline still runs. The child is then replaced, since
	// that work takes its CPU and memory for as long as it runs.
	Abandoned() bool
}

// EngineOptions is what the child gives the engine it builds.
type EngineOptions struct {
	Limits            executors.Limits
	AuthorizedImports []string
	// Stdout receives printed output as it is produced; the child sends
	// it on to the host.
	Stdout io.Writer
	// Rerun is Options.Rerun.
	Rerun bool
	// Batch runs the calls of one parallel() in the host, in one message,
	// and returns one result per call, in order. An engine without
	// parallel() may ignore it.
	Batch func(ctx context.Context, calls []Call, workers int) []CallResult
}

// Call is one tool call of a batch, its arguments bound.
type Call struct {
	Tool tool.Tool
	Args map[string]any
}

// CallResult is what one call of a batch gave: a value or an error.
type CallResult struct {
	Value any
	Err   error
}

// engine is an engine the child can run.
type engine struct {
	// open builds the engine in the child.
	open func(EngineOptions) (Engine, error)
	// checkSyntax is executors.SyntaxChecker for the host, which has no
	// engine of its own.
	checkSyntax func(code string) error
}

// engines are the engines by Options.Engine, which is also the engine's
// name in results.
var engines = map[string]engine{
	starlarkexec.Engine: {open: openStarlark, checkSyntax: starlarkexec.CheckSyntax},
}

func openStarlark(opts EngineOptions) (Engine, error) {
	o := starlarkexec.Options{Limits: opts.Limits, AuthorizedImports: opts.AuthorizedImports, Stdout: opts.Stdout, Rerun: opts.Rerun}
	if batch := opts.Batch; batch != nil {
		o.Batch = func(ctx context.Context, calls []starlarkexec.Call, workers int) []starlarkexec.CallResult {
			in := make([]Call, len(calls))
			for i, c := range calls {
				in[i] = Call(c)
			}
			res := batch(ctx, in, workers)
			out := make([]starlarkexec.CallResult, len(res))
			for i, r := range res {
				out[i] = starlarkexec.CallResult(r)
			}
			return out
		}
	}
	return starlarkexec.New(o)
}
