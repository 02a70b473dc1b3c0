package starlarkexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/star-agent/star-agent/builtins"
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/tool"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Tools as the code sees them: builtins that bind their arguments with
// tool.Bind and call the Go tool with the execution's context, and
// parallel(), which runs several calls at once.

type builtinFunc = func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)

// toolBuiltin returns a new builtin that calls t, and remembers it as t's.
func (e *Executor) toolBuiltin(t tool.Tool) *starlark.Builtin {
	b := starlark.NewBuiltin(t.Spec().Name, e.callTool(t))
	e.toolValues.Store(b, t)
	e.toolNames.Store(t.Spec().Name, t)
	return b
}

// toolOf returns the tool a value stands for: a tool's builtin.
func (e *Executor) toolOf(v starlark.Value) (tool.Tool, bool) {
	b, ok := v.(*starlark.Builtin)
	if !ok {
		return nil, false
	}
	t, ok := e.toolValues.Load(b)
	if !ok {
		return nil, false
	}
	return t.(tool.Tool), true
}

func (e *Executor) callTool(t tool.Tool) builtinFunc {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		spec := t.Spec()
		bound, err := e.bindTool(thread, spec, args, kwargs)
		if err != nil {
			return nil, err
		}
		ctx := toolContext(thread)
		markToolCall(thread)
		out, err := t.Call(ctx, bound)
		if err == nil {
			if err := holdResult(thread, spec.Name, out); err != nil {
				return nil, err
			}
		}
		return toolResult(ctx, spec.Name, out, err)
	}
}

// resultsKey is the thread-local *executors.ResultBudget of the tool
// results of one execution.
const resultsKey = "star-agent.results"

// holdResult charges a tool's result to the execution: to the step's
// tool results and to its memory budget.
func holdResult(thread *starlark.Thread, name string, out any) error {
	n := executors.ResultSize(out)
	if step, _ := thread.Local(resultsKey).(*executors.ResultBudget); !step.Take(n) {
		return stepResultsError(step)
	}
	if err := core.Alloc(thread, n); err != nil {
		return core.Errorf(pyexc.MemoryError, "the result of tool %s (%s) does not fit in the memory budget: %v", name, core.FormatBytes(n), err)
	}
	return nil
}

func stepResultsError(step *executors.ResultBudget) error {
	return core.Errorf(pyexc.MemoryError, "the tool results of this step passed %s (four times the memory budget); split the work over several steps", core.FormatBytes(step.Max))
}

// bindTool converts the arguments of a call of spec and binds them. A tool
// passed as an argument crosses as its name, as help(web_search) needs.
func (e *Executor) bindTool(thread *starlark.Thread, spec tool.Spec, args starlark.Tuple, kwargs []starlark.Tuple) (map[string]any, error) {
	pos := make([]any, len(args))
	for i, a := range args {
		v, err := e.toolArg(thread, a)
		if err != nil {
			return nil, err
		}
		pos[i] = v
	}
	kw := make(map[string]any, len(kwargs))
	for _, kv := range kwargs {
		v, err := e.toolArg(thread, kv[1])
		if err != nil {
			return nil, err
		}
		kw[string(kv[0].(starlark.String))] = v
	}
	bound, err := tool.Bind(spec, pos, kw)
	if err != nil {
		return nil, core.Errorf(pyexc.TypeError, "%v", err)
	}
	return bound, nil
}

func (e *Executor) toolArg(thread *starlark.Thread, v starlark.Value) (any, error) {
	if t, ok := e.toolOf(v); ok {
		return t.Spec().Name, nil
	}
	return toGo(thread, v)
}

// toolContext is the context tools run with: the execution's, with the
// code's output for what tools print.
func toolContext(thread *starlark.Thread) context.Context {
	ctx, _ := thread.Local(ctxKey).(context.Context)
	if ctx == nil {
		ctx = context.Background()
	}
	if w, ok := thread.Local(contract.StdoutKey).(io.Writer); ok {
		ctx = tool.WithOutput(ctx, w)
	}
	return ctx
}

// toolResult converts what a tool returned for the code, or its error to
// the exception the code sees.
func toolResult(ctx context.Context, name string, out any, err error) (starlark.Value, error) {
	if err != nil {
		if ctx.Err() != nil {
			return nil, &core.Interrupt{Reason: "cancelled"}
		}
		var be *core.Error
		if errors.As(err, &be) {
			return nil, be
		}
		var ee *executors.ExecError
		if errors.As(err, &ee) && ee.Type != "" {
			// The type comes from the sandbox that ran the tool: any name.
			return nil, &core.Error{Type: ee.Type, Msg: ee.Message}
		}
		// As in smolagents, str(e) is the tool's own message; the
		// type says it came from a tool.
		return nil, core.Errorf(pyexc.ToolError, "%v", err)
	}
	v, err := core.FromGo(out)
	if err != nil {
		return nil, core.Errorf(pyexc.ToolError, "tool %s returned a value that cannot be used: %v", name, err)
	}
	return v, nil
}

// Limits of parallel().
const (
	// DefaultParallelWorkers is how many calls of one parallel() run at
	// once unless max_workers says otherwise.
	DefaultParallelWorkers = 8
	// MaxParallelWorkers bounds max_workers.
	MaxParallelWorkers = 64
	// MaxParallelCalls bounds the calls of one parallel().
	MaxParallelCalls = 1000
)

// Call is one tool call of a parallel(), its arguments bound.
type Call struct {
	Tool tool.Tool
	Args map[string]any
}

// CallResult is what one call of a parallel() gave: a value or an error.
type CallResult struct {
	Value any
	Err   error
}

// parallel is parallel(tool, arguments, max_workers=8, raise_errors=False)
// or parallel(calls, ...) with calls a list of (tool, arguments) pairs. An
// item of arguments is the argument of one call: a tuple holds positional
// arguments, anything else (a dict included, which tool.Bind may take as
// keyword arguments) is the only argument. It returns the results in
// order; a call that failed leaves its exception in place, or with
// raise_errors the first failure raises an ExceptionGroup that lists them
// all.
//
// Arguments are converted and bound on the execution's thread; the calls
// run on goroutines of their own with the execution's context (tools run
// in Go, never on the thread), and their results are converted back on
// the thread once all have returned.
func (e *Executor) parallel(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var first, items starlark.Value
	workers, raise := DefaultParallelWorkers, false
	if err := starlark.UnpackArgs("parallel", args, kwargs, "calls", &first, "arguments?", &items, "max_workers?", &workers, "raise_errors?", &raise); err != nil {
		return nil, core.Errorf(pyexc.TypeError, "%v", err)
	}
	if workers < 1 || workers > MaxParallelWorkers {
		return nil, core.Errorf(pyexc.ValueError, "parallel(): max_workers must be between 1 and %d, got %d", MaxParallelWorkers, workers)
	}
	type pending struct {
		t    tool.Tool
		args starlark.Value // nil: no arguments
	}
	var todo []pending
	collect := func(seq starlark.Value, each func(starlark.Value) error) error {
		it, ok := seq.(starlark.Iterable)
		if !ok {
			return core.Errorf(pyexc.TypeError, "parallel(): the arguments must be a list, not %s", seq.Type())
		}
		iter := it.Iterate()
		defer iter.Done()
		var x starlark.Value
		for iter.Next(&x) {
			if len(todo) >= MaxParallelCalls {
				return core.Errorf(pyexc.ValueError, "parallel(): at most %d calls at once; split them into several parallel() calls", MaxParallelCalls)
			}
			if err := each(x); err != nil {
				return err
			}
		}
		return nil
	}
	if t, ok := e.toolFor(first); ok {
		if items == nil {
			return nil, core.Errorf(pyexc.TypeError, "parallel(%s, arguments): give the list of arguments, one item per call", t.Spec().Name)
		}
		if err := collect(items, func(x starlark.Value) error {
			todo = append(todo, pending{t, x})
			return nil
		}); err != nil {
			return nil, err
		}
	} else {
		if items != nil {
			return nil, core.Errorf(pyexc.TypeError, "parallel(): the first argument must be a tool or a tool's name, not %s", first.Type())
		}
		if err := collect(first, func(x starlark.Value) error {
			pair, ok := x.(starlark.Indexable)
			if _, isStr := x.(starlark.String); isStr || !ok || pair.Len() < 1 || pair.Len() > 2 {
				return core.Errorf(pyexc.TypeError, "parallel(calls): each call must be a pair (tool, arguments), not %s", x.Type())
			}
			t, ok := e.toolFor(pair.Index(0))
			if !ok {
				return core.Errorf(pyexc.TypeError, "parallel(calls): %s is not a tool", pair.Index(0).Type())
			}
			var a starlark.Value
			if pair.Len() == 2 {
				a = pair.Index(1)
			} else {
				a = starlark.Tuple{}
			}
			todo = append(todo, pending{t, a})
			return nil
		}); err != nil {
			return nil, err
		}
	}

	calls := make([]Call, len(todo))
	results := make([]CallResult, len(todo))
	for i, p := range todo {
		var pos starlark.Tuple
		var kw []starlark.Tuple
		if tup, ok := p.args.(starlark.Tuple); ok {
			pos = tup
		} else {
			pos = starlark.Tuple{p.args}
		}
		bound, err := e.bindTool(thread, p.t.Spec(), pos, kw)
		if err != nil {
			if !core.Catchable(err) {
				return nil, err
			}
			results[i].Err = err
			continue
		}
		calls[i] = Call{Tool: p.t, Args: bound}
	}

	ctx := toolContext(thread)
	markToolCall(thread)
	step, _ := thread.Local(resultsKey).(*executors.ResultBudget)
	batch := &executors.ResultBudget{Max: executors.MaxBatchResults(e.limits)}
	if b := core.BudgetOf(thread); b != nil && b.Limit > 0 {
		batch.Max = max(min(batch.Max, b.Limit-b.Live), 0)
	}
	if e.batch != nil {
		var idx []int
		var run []Call
		for i, c := range calls {
			if c.Tool != nil {
				idx = append(idx, i)
				run = append(run, c)
			}
		}
		if len(run) > 0 {
			for j, r := range e.batch(ctx, run, workers) {
				results[idx[j]] = r
			}
		}
	} else if err := runCalls(ctx, calls, results, workers, batch, step); err != nil {
		return nil, err
	}
	// What the batch holds, charged on the thread (in another process's
	// batch, the host counted nothing here).
	var held int64
	for i, r := range results {
		if r.Err == nil && calls[i].Tool != nil {
			held += executors.ResultSize(r.Value)
		}
	}
	if e.batch != nil && !step.Take(held) {
		return nil, stepResultsError(step)
	}
	if err := core.Alloc(thread, held); err != nil {
		return nil, err
	}

	out := make([]starlark.Value, len(todo))
	var failed []string
	for i, r := range results {
		err := r.Err
		var v starlark.Value
		if err == nil {
			v, err = toolResult(ctx, calls[i].Tool.Spec().Name, r.Value, nil)
		} else if calls[i].Tool != nil {
			_, err = toolResult(ctx, calls[i].Tool.Spec().Name, nil, err)
		}
		if err != nil {
			if !core.Catchable(err) {
				return nil, err
			}
			exc, xerr := exceptionValue(thread, err)
			if xerr != nil {
				return nil, xerr
			}
			typ, msg := core.Classify(err)
			failed = append(failed, fmt.Sprintf("call %d (%s): %s: %s", i, todo[i].t.Spec().Name, typ, msg))
			v = exc
		}
		out[i] = v
	}
	if raise && len(failed) > 0 {
		msg := fmt.Sprintf("parallel(): %d of %d calls failed", len(failed), len(todo))
		for _, f := range failed {
			msg += "\n  " + f
		}
		return nil, core.Errorf(pyexc.ExceptionGroup, "%s", msg)
	}
	return starlark.NewList(out), nil
}

// toolFor returns the tool a value names: a tool, or a tool's name.
func (e *Executor) toolFor(v starlark.Value) (tool.Tool, bool) {
	if t, ok := e.toolOf(v); ok {
		return t, true
	}
	name, ok := v.(starlark.String)
	if !ok {
		return nil, false
	}
	t, ok := e.toolNames.Load(string(name))
	if !ok {
		return nil, false
	}
	return t.(tool.Tool), true
}

// runCalls runs the calls that are set on goroutines, at most workers at
// a time, and waits for them all, or for ctx to end: calls that ignore
// their context are then left to finish on their own.
//
// Each result is counted against the batch's and the step's budgets as it
// arrives: one that would pass either is dropped for a MemoryError, and
// the calls not started yet are not started; runCalls returns the
// MemoryError for parallel() to raise.
func runCalls(ctx context.Context, calls []Call, results []CallResult, workers int, batch, step *executors.ResultBudget) error {
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	var mu sync.Mutex // results written by the goroutines, read after
	var full error    // set once a result did not fit; under mu
	for i, c := range calls {
		if c.Tool == nil {
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return &core.Interrupt{Reason: "cancelled"}
		}
		mu.Lock()
		if full != nil {
			results[i] = CallResult{Err: full}
			mu.Unlock()
			<-sem
			continue
		}
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			v, err := c.Tool.Call(ctx, c.Args)
			over := false
			if err == nil {
				n := executors.ResultSize(v)
				switch {
				case !batch.Take(n):
					v, err, over = nil, core.Errorf(pyexc.MemoryError, "parallel(): the results of this batch passed %s (what is left of the memory budget, at most a quarter of it); ask for less at once: fewer calls, or smaller results", core.FormatBytes(batch.Max)), true
				case !step.Take(n):
					v, err, over = nil, stepResultsError(step), true
				}
			}
			mu.Lock()
			results[i] = CallResult{v, err}
			if over && full == nil {
				full = err
			}
			mu.Unlock()
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		mu.Lock()
		defer mu.Unlock()
		return full // the batch's results did not fit: parallel() raises
	case <-ctx.Done():
		return &core.Interrupt{Reason: "cancelled"}
	}
}

// exceptionValue is the exception instance code would catch for err (via
// the front end's try helper, which makes them).
func exceptionValue(thread *starlark.Thread, err error) (starlark.Value, error) {
	raise := starlark.NewBuiltin("call", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		return nil, err
	})
	r, cerr := starlark.Call(thread, tryHelper, starlark.Tuple{raise}, nil)
	if cerr != nil {
		return nil, cerr
	}
	pair, ok := r.(starlark.Tuple)
	if !ok || len(pair) != 2 {
		return nil, fmt.Errorf("local: %s returned %s", contract.HelperTry, r.Type())
	}
	return pair[0], nil
}

var tryHelper = builtins.Runtime()[contract.HelperTry]
