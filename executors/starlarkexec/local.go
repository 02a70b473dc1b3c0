// Package starlarkexec is the Starlark engine: it runs model-written
// Python in go.starlark.net, in process, under step, time, memory, output
// and recursion limits.
//
// Python is parsed and lowered to Starlark by the front end (pyfront); the
// Python-compatible builtins and modules come from package builtins; this
// package owns threads, limits, the import policy, tools and the state that
// persists between executions. Safety is by construction: the interpreter
// has no file, network, process or reflection access, and the only modules
// are the Go ones builtins provides.
//
// Code that is valid Python but needs CPython (an authorized import this
// engine does not have, syntax the front end cannot lower) fails with an
// ExecError whose NeedsPython is set, so a router can send it elsewhere.
//
// This package runs the engine in the calling process; package isolation
// runs it in a child process under OS limits.
package starlarkexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins"
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/pyfront"
	"github.com/star-agent/star-agent/tool"
	"github.com/star-agent/star-agent/vm/resolve"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Engine is the name results give this engine.
const Engine = "starlark"

// Options configures an Executor. The zero value is usable.
type Options struct {
	// Limits bound each execution; zero fields take the defaults.
	Limits executors.Limits
	// AuthorizedImports extends executors.DefaultAuthorizedImports.
	// executors.NeverImportable stays refused whatever this says.
	AuthorizedImports []string
	// Stdout, if set, receives printed output as it is produced (capped
	// like Result.Stdout).
	Stdout io.Writer
	// Rerun says that a router above the engine runs in full Python a
	// step the engine stops at run time at a construct it cannot run:
	// then the engine undoes what such a step bound and marks its error
	// NeedsPython, unless the step printed, called a tool or changed a
	// value in place (see rerun.go).
	Rerun bool
	// Batch, if set, runs the calls of a parallel() in place of the
	// engine, which runs them on goroutines of its own otherwise: the
	// engine in an isolation child sends them to its host in one message.
	// It returns one result per call, in order.
	Batch func(ctx context.Context, calls []Call, workers int) []CallResult
}

// Executor runs code actions in the Starlark engine. It keeps variables and
// functions between executions. Executions of one Executor are serialised;
// use one Executor per agent.
//
// An execution that outlives its deadline inside Go code that does not
// check for cancellation (a builtin, a tool that ignores its context) is
// abandoned: Execute reports a TimeoutError at once and the executor
// starts afresh with a new state, since the abandoned work keeps the old
// one and may still change it. The model is told that what it defined is
// gone, as when a Python sandbox is restarted.
type Executor struct {
	limits executors.Limits
	policy executors.ImportPolicy
	live   io.Writer

	mu     sync.Mutex // held while an execution runs, until it ends or is abandoned
	st     *state
	tools  map[string]tool.Tool // the tools, bound again in a fresh state
	vars   map[string]any       // what SetVariables bound, bound again in a fresh state
	chunk  int                  // executions so far, names each chunk "<step N>"
	closed bool                 // Close was called
	lost   string               // a note for the next result: the state was lost

	stopMu sync.Mutex
	stop   context.CancelFunc // cancels the execution in progress, for Close

	abandoned atomic.Int32 // abandoned executions whose work still runs

	rerun bool // Options.Rerun

	// toolValues maps the builtins bound to tools to their tools, so that
	// a tool passed as a value (parallel(search, ...), help(search)) is
	// known. Executions read it; SetTools and fresh states add to it.
	toolValues sync.Map // *starlark.Builtin -> tool.Tool
	toolNames  sync.Map // name -> tool.Tool, the latest of that name
	// batch, when set, runs the calls of parallel() (Options.Batch).
	batch func(ctx context.Context, calls []Call, workers int) []CallResult
}

// state is what the code of an executor defines and reaches. An abandoned
// execution keeps its state and the executor gets a new one, so that the
// two share nothing the code can change.
type state struct {
	policy  executors.ImportPolicy
	globals starlark.StringDict
	base    map[string]starlark.Value         // predeclared values, to tell them from user state
	defs    map[*starlark.Function]definition // sources of top-level defs, for relinking
	modules map[string]starlark.Value         // imported modules: one instance per state, as in Python
	protect map[string]bool                   // names the code may not bind: final_answer and the tools
	ns      *core.Namespace                   // globals as the steps' modules share them (relink.go)
	rerun   bool                              // Options.Rerun
	mem     carried                           // the last execution's memory measurement (monitor.go)
}

// New returns an Executor with the given options.
func New(opts Options) (*Executor, error) {
	if err := opts.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	e := &Executor{
		limits: opts.Limits.WithDefaults(),
		policy: executors.NewImportPolicy(opts.AuthorizedImports, executors.NeverImportable),
		live:   opts.Stdout,
		tools:  map[string]tool.Tool{},
		vars:   map[string]any{},
		rerun:  opts.Rerun,
		batch:  opts.Batch,
	}
	e.st = e.newState()
	return e, nil
}

// newState returns a state with only the builtins, the tools and the
// variables the caller set.
func (e *Executor) newState() *state {
	st := &state{
		policy:  e.policy,
		globals: starlark.StringDict{},
		defs:    map[*starlark.Function]definition{},
		modules: map[string]starlark.Value{},
		protect: map[string]bool{"final_answer": true},
		rerun:   e.rerun,
	}
	for k, v := range builtins.Universe() {
		st.globals[k] = v
	}
	for k, v := range builtins.Runtime() {
		st.globals[k] = v
	}
	st.globals["final_answer"] = starlark.NewBuiltin("final_answer", finalAnswer)
	st.globals["parallel"] = starlark.NewBuiltin("parallel", e.parallel)
	st.globals[contract.HelperImport] = starlark.NewBuiltin(contract.HelperImport, st.importModule)
	for name, t := range e.tools {
		st.globals[name] = e.toolBuiltin(t)
		st.protect[name] = true
	}
	st.resetBase()
	for name, x := range e.vars {
		if v, err := importValue(x); err == nil { // it converted when it was set
			st.globals[name] = v
		}
	}
	return st
}

// universe is the builtins as predeclared, to tell when the program
// has rebound one of their names.
var universe = builtins.Universe()

// rebound reports whether the globals bind name to something other than
// the builtin of that name (a user's len = ..., or a tool called len).
// The front end then trusts no builtin of that name.
func (st *state) rebound(name string) bool {
	v, ok := st.globals[name]
	if !ok {
		return false
	}
	u, ok := universe[name]
	if !ok {
		return true
	}
	t := reflect.TypeOf(v)
	return t != reflect.TypeOf(u) || !t.Comparable() || v != u
}

// protected reports whether code may not bind name: final_answer and the
// tools keep their meaning for the whole run.
func (st *state) protected(name string) bool { return st.protect[name] }

func (st *state) resetBase() {
	st.base = make(map[string]starlark.Value, len(st.globals))
	for k, v := range st.globals {
		st.base[k] = v
	}
}

// Policy returns the executor's import policy.
func (e *Executor) Policy() executors.ImportPolicy { return e.policy }

// Limits returns the executor's limits, defaults filled in.
func (e *Executor) Limits() executors.Limits { return e.limits }

func finalAnswer(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var answer starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "answer", &answer); err != nil {
		return nil, core.Errorf(pyexc.TypeError, "%s", strings.TrimPrefix(err.Error(), "final_answer: "))
	}
	return nil, &core.Final{Value: answer}
}

func (st *state) importModule(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var top bool
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &name, &top); err != nil {
		return nil, err
	}
	if ee := st.policy.Check(name); ee != nil {
		// The operator's hint does not reach the result from here: only
		// imports the front end could not see statically come this way.
		return nil, &core.Error{Type: refusalType(ee.Type, name), Msg: ee.Message}
	}
	if top {
		name, _, _ = strings.Cut(name, ".")
	}
	m, ok := st.module(name)
	if !ok {
		return nil, core.Errorf(pyexc.ModuleNotFoundError, "%s", needsPythonMessage(name))
	}
	return m, nil
}

// module returns the state's instance of a module, creating it on first
// use: every import of random in one executor shares one generator. Only
// the execution that owns the state calls it.
func (st *state) module(name string) (starlark.Value, bool) {
	if m, ok := st.modules[name]; ok {
		return m, true
	}
	m, ok := builtins.Module(name)
	if ok {
		st.modules[name] = m
	}
	return m, ok
}

// refusalType is the type of the error that refuses to import module:
// ModuleNotFoundError, as CPython says, for a module the engine does not
// have at all (numpy, a typo), else the policy's ImportError (a module
// that exists but is not authorized, or gives access to the host). Both
// are caught by except ImportError.
func refusalType(typ, module string) string {
	top, _, _ := strings.Cut(module, ".")
	if typ != "ImportError" || executors.IsHostModule(top) {
		return typ
	}
	if builtins.HasModule(top) {
		return typ
	}
	return "ModuleNotFoundError"
}

func needsPythonMessage(module string) string {
	return fmt.Sprintf("module '%s' is authorized but the Starlark engine does not provide it; full Python is not available in this run: rewrite this code without %s", module, module)
}

// SetTools makes tools callable from code as functions, by their names.
// Arguments may be positional (in input order) or keyword. ctx is part of
// the Executor contract; in process there is nothing to wait for.
func (e *Executor) SetTools(ctx context.Context, tools []tool.Tool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return errors.New("local: executor is closed")
	}
	for _, t := range tools {
		spec := t.Spec()
		if !isIdentifier(spec.Name) || strings.HasPrefix(spec.Name, "__") {
			return fmt.Errorf("local: tool name %q is not a valid Python identifier", spec.Name)
		}
		if spec.Name == "final_answer" || spec.Name == "print" {
			return fmt.Errorf("local: tool name %q is reserved", spec.Name)
		}
		e.tools[spec.Name] = t
		e.st.globals[spec.Name] = e.toolBuiltin(t)
		e.st.protect[spec.Name] = true
	}
	e.st.resetBase()
	return nil
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func isIdentifier(s string) bool { return identRE.MatchString(s) }

const ctxKey = "star-agent.ctx"

// SetVariables binds values as global variables of the code: JSON-shaped
// Go values, the runner protocol's Tuple, Set and Dict (as another engine's
// Variables returns them), or anything that marshals to JSON. They are
// bound again if the executor has to start afresh. ctx is as for SetTools.
func (e *Executor) SetVariables(ctx context.Context, vars map[string]any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return errors.New("local: executor is closed")
	}
	for name, x := range vars {
		if !isIdentifier(name) || strings.HasPrefix(name, "__") {
			return fmt.Errorf("local: variable name %q is not a valid Python identifier", name)
		}
		if tool.IsReserved(name) || e.st.protected(name) {
			return fmt.Errorf("local: variable name %q is reserved: it is the agent's own or a tool's", name)
		}
		v, err := importValue(x)
		if err != nil {
			return fmt.Errorf("local: variable %s: %w", name, err)
		}
		e.st.globals[name] = v
		e.vars[name] = x
	}
	return nil
}

// Variables returns the code's global variables that can be represented as
// JSON-shaped Go values, and for those that cannot (functions, modules,
// objects, values too large to carry) why. Routers use it to carry state
// to another engine. All of them together take at most the memory limit
// as JSON.
func (e *Executor) Variables(ctx context.Context) (vars map[string]any, skipped map[string]string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	vars, skipped = map[string]any{}, map[string]string{}
	if e.closed {
		return vars, skipped, errors.New("local: executor is closed")
	}
	// The values are built expanded in Go (a list that repeats one list
	// is copied each time), at about 16 bytes of Go per JSON byte at
	// worst ([0, 0, ...]): a sixteenth of the budget as JSON keeps the
	// export within the budget in host memory.
	room := e.limits.MaxMemory / 16
	names := slices.Sorted(maps.Keys(e.st.globals))
	for _, name := range names {
		v := e.st.globals[name]
		if b, ok := e.st.base[name]; ok && b == v {
			continue
		}
		if strings.HasPrefix(name, "__") {
			continue
		}
		c := converter{runner: true, max: room}
		x, err := c.convert(v, 0)
		var big *tooLarge
		if errors.As(err, &big) {
			skipped[name] = fmt.Sprintf("it is too large to carry to another engine (the variables carried may take %s in all as JSON)", core.FormatBytes(e.limits.MaxMemory/16))
			continue
		}
		if err != nil {
			_, skipped[name] = core.Classify(err)
			continue
		}
		room -= c.size
		vars[name] = x
	}
	return vars, skipped, nil
}

// Abandoned reports whether work of an execution the executor abandoned
// at its deadline still runs: the executor started afresh, but the work
// takes CPU and memory until it ends, if it ends.
func (e *Executor) Abandoned() bool { return e.abandoned.Load() > 0 }

// Close releases the executor. Later executions fail. It stops an
// execution in progress and does not wait for work an execution
// abandoned.
func (e *Executor) Close() error {
	e.stopMu.Lock()
	if e.stop != nil {
		e.stop()
	}
	e.stopMu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	e.st = nil
	return nil
}

// lastValue is the hidden global that receives the value of a final
// expression statement.
const lastValue = "__sa_last"

// startedAfresh tells the model what an abandoned execution cost it.
const startedAfresh = "the Starlark engine started afresh: variables, functions and imports defined before are gone (tools and the task's variables are still there)"

// abandonGrace is how long after the deadline an execution may take to
// stop before it is abandoned: the thread stops at its next step, a
// builtin that checks for cancellation a moment later.
const abandonGrace = 50 * time.Millisecond

// Execute runs code with the executor's state and limits. The returned
// error is non-nil only when ctx was cancelled by the caller (the Result
// still describes what ran) or the executor is closed.
//
// The time limit covers everything the execution causes: the front end,
// compiling, running, and rendering and converting the value it returns.
// All of it runs on one goroutine, which Execute abandons when it has not
// stopped shortly after the deadline.
func (e *Executor) Execute(ctx context.Context, code string) (executors.Result, error) {
	start := time.Now()
	res := executors.Result{Engine: Engine}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return res, errors.New("local: executor is closed")
	}
	limits := e.limits
	// The limit counts running time: the clock stops while a tool call
	// waits for a person (see executors.PauseClock).
	runCtx, clock, cancel := executors.StartClock(ctx, limits.Timeout)
	defer cancel()
	e.stopMu.Lock()
	e.stop = cancel
	e.stopMu.Unlock()
	defer func() {
		e.stopMu.Lock()
		e.stop = nil
		e.stopMu.Unlock()
	}()
	e.chunk++
	name := fmt.Sprintf("<step %d>", e.chunk)
	if e.lost != "" {
		res.Notes = append(res.Notes, e.lost)
		e.lost = ""
	}
	st := e.st

	printed := newOutput(limits.MaxOutput, e.live)
	thread := &starlark.Thread{
		Name:  "star-agent",
		Print: func(_ *starlark.Thread, msg string) { printed.WriteString(msg + "\n") },
	}
	thread.SetLocal(ctxKey, runCtx)
	outer, hasOuter := ctx.Deadline()
	thread.SetLocal(contract.DeadlineKey, func() time.Time {
		if d := clock.Deadline(); !hasOuter || d.Before(outer) {
			return d
		}
		return outer
	})
	thread.SetLocal(contract.StdoutKey, io.Writer(printed))
	thread.SetLocal(resultsKey, &executors.ResultBudget{Max: executors.MaxStepResults(limits)})
	if tape := executors.TapeFrom(runCtx); tape != nil {
		thread.SetLocal(contract.ReaderKey, contract.Reader(tape))
	}
	core.PrepareRepr(thread)
	mon := newMonitor(thread, st.globals, limits, runCtx)
	mon.carry = &st.mem

	// Cancel the thread when the deadline passes or the caller cancels.
	watchDone := make(chan struct{})
	stopWatch := context.AfterFunc(runCtx, func() {
		defer close(watchDone)
		mon.cancel(mon.reason())
	})

	done := make(chan executors.Result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				// The model gets what it can act on; the Go stack is for
				// whoever reports the bug, in the traceback.
				done <- executors.Result{Err: &executors.ExecError{
					Type:      "SystemError",
					Message:   fmt.Sprintf("internal error in the Starlark engine (%v): a bug in star-agent, not in the code; write this step another way", p),
					Traceback: string(debug.Stack()),
				}}
			}
		}()
		done <- st.run(runCtx, thread, mon, name, code)
	}()

	var out executors.Result
	abandoned := false
	select {
	case out = <-done:
	case <-runCtx.Done():
		// The thread stops at its next step; a builtin that does not check
		// for cancellation may hold it longer. Give it a short grace, then
		// abandon it (see Executor).
		select {
		case out = <-done:
		case <-time.After(abandonGrace):
			abandoned = true
		}
	}
	if abandoned {
		// The abandoned goroutine keeps the old state, the monitor and
		// the thread; from now on it prints nowhere.
		res.Stdout, res.Truncated = printed.close()
		e.abandon(st, done)
		why := "the execution was cancelled and did not stop"
		lost := "the previous execution was cancelled and did not stop, so " + startedAfresh
		if executors.TimedOut(runCtx) {
			why = fmt.Sprintf("execution exceeded the time limit of %s and was stopped", limits.Timeout)
			lost = "the previous execution ran past its time limit and could not be stopped, so " + startedAfresh
		}
		res.Err = &executors.ExecError{Type: "TimeoutError", Message: why + "; " + startedAfresh}
		// The caller may not show this result to the model (it gets an
		// error when it cancelled): the next one says it again.
		e.lost = lost
		e.mu.Unlock()
	} else {
		if !stopWatch() {
			<-watchDone // let a watcher that started finish with the monitor
		}
		res.Stdout, res.Truncated = printed.close()
		res.Value, res.Repr, res.IsFinal, res.Err, res.Steps = out.Value, out.Repr, out.IsFinal, out.Err, out.Steps
		res.Imports = out.Imports
		res.Notes = append(res.Notes, out.Notes...)
		e.mu.Unlock()
	}
	res.Duration = time.Since(start)
	if ctx.Err() != nil {
		return res, fmt.Errorf("local: execution stopped: %w", ctx.Err())
	}
	return res, nil
}

// abandon gives the executor a fresh state in place of st, which an
// execution that did not stop at its deadline still uses, and lets that
// execution end in the background. Called with the executor locked.
func (e *Executor) abandon(st *state, done <-chan executors.Result) {
	if e.st == st {
		e.st = e.newState()
	}
	e.abandoned.Add(1)
	go func() {
		<-done // st.run closes the generators itself
		e.abandoned.Add(-1)
	}()
}

// run is the whole of an execution, on the goroutine Execute may abandon:
// it touches only st, thread and mon.
func (st *state) run(ctx context.Context, thread *starlark.Thread, mon *monitor, name, code string) (res executors.Result) {
	mon.install()
	defer mon.closeGenerators()
	if max := maxCode(mon.limits.MaxMemory); len(code) > max {
		res.Err = &executors.ExecError{Type: "MemoryError", Message: fmt.Sprintf(
			"the code is too long: %d bytes, more than the %d this engine accepts in one step under its %d MiB memory budget; split the work over several steps",
			len(code), max, mon.limits.MaxMemory>>20)}
		return res
	}
	prog, err := pyfront.LowerProtected(name, code, st.rebound, st.protected)
	if err != nil {
		res.Err = frontEndError(err, code)
		return res
	}
	for _, imp := range prog.Imports {
		res.Imports = append(res.Imports, imp.Module)
		if ee := st.checkImport(imp.Module); ee != nil {
			ee.Line = imp.Line
			ee.Source = sourceLine(code, imp.Line)
			res.Err = ee
			return res
		}
	}
	// Guarded imports (under an if, or in a try that catches ImportError)
	// are checked where they run: the code may fall back. With a router
	// above (Options.Rerun), an authorized module only CPython has sends
	// the step there first, where the import works, rather than to the
	// fallback.
	for _, imp := range prog.Deferred {
		res.Imports = append(res.Imports, imp.Module)
		if !st.rerun {
			continue
		}
		if ee := st.checkImport(imp.Module); ee != nil && ee.NeedsPython {
			ee.Line = imp.Line
			ee.Source = sourceLine(code, imp.Line)
			res.Err = ee
			return res
		}
	}
	c := &chunk{name: name, code: code, prog: prog}
	c.prelude = st.prelude(topLevelBindings(prog.File.Stmts))
	cp := st.checkpoint(thread)
	out := st.execChunk(thread, c)
	st.finish(ctx, &res, thread, out.err, mon, name, code)
	res.Steps = mon.steps()
	st.settle(out)
	st.handOn(cp, &res, thread)
	if mon.overAtEnd() && res.Err == nil {
		res.Value, res.Repr, res.IsFinal = nil, "", false
		res.Err = runtimeError(mon.stopError(), mon, nil, name, code)
	}
	mon.save()
	return res
}

// outcome is what running a chunk gave.
type outcome struct {
	file       *syntax.File // as it ran
	preludeLen int          // statements of file before the user's code
	chunk      *chunk
	unbound    []string // names undefined when it was compiled
	err        error
}

// finish fills res from the outcome of an execution: the error, or the
// value it returns, rendered and converted on the execution's thread,
// under its limits.
func (st *state) finish(ctx context.Context, res *executors.Result, th *starlark.Thread, runErr error, mon *monitor, chunk, code string) {
	var final *core.Final
	var err error
	limits := mon.limits
	switch {
	case runErr == nil:
		if v, ok := st.globals[lastValue]; ok {
			res.Value, res.Repr, res.Notes, err = exportResult(th, v, limits, "value of the last expression")
		}
	case errors.As(runErr, &final):
		res.IsFinal = true
		res.Value, res.Repr, res.Notes, err = exportResult(th, final.Value, limits, "final answer")
	default:
		err = runErr
	}
	if err != nil {
		res.Value, res.Repr, res.IsFinal, res.Notes = nil, "", false, nil
		res.Err = runtimeError(err, mon, context.Cause(ctx), chunk, code)
	}
}

// exportResult renders and converts a value an execution returns (what
// names it for messages): its repr, cut to Limits.MaxOutput characters,
// and the value as JSON-shaped Go values, or the repr if it has none or if
// it would take more than Limits.MaxValue bytes as JSON. Neither is built
// whole before it is cut; what they take counts against the memory budget,
// and user __repr__ and __str__ run on th, under the execution's limits.
func exportResult(th *starlark.Thread, v starlark.Value, limits executors.Limits, what string) (value any, repr string, notes []string, err error) {
	repr, cut, err := core.ReprLimited(th, v, limits.MaxOutput)
	if err != nil {
		if typ, _ := core.Classify(err); typ == "RecursionError" {
			return nil, "", nil, core.Errorf(pyexc.RecursionError,
				"maximum recursion depth exceeded while getting the repr of an object: the %s is nested too deeply to show; return a flatter value", what)
		}
		return nil, "", nil, err
	}
	raw := repr
	if cut {
		repr += fmt.Sprintf("...\n[%s truncated: its repr is longer than %d characters and only the first %d are kept]", what, limits.MaxOutput, limits.MaxOutput)
	}
	// short stands for a value too large to return: the repr, cut again
	// to MaxValue bytes when MaxOutput allows more than that.
	short := func() string {
		if int64(len(raw)) <= limits.MaxValue {
			return repr
		}
		n := runePrefixLen(raw, int(limits.MaxValue))
		return raw[:n] + fmt.Sprintf("...\n[%s truncated: the first %d bytes of its repr are kept]", what, n)
	}
	c := converter{th: th, max: limits.MaxValue}
	x, err := c.convert(v, 0)
	var big *tooLarge
	switch {
	case err == nil:
		return x, repr, nil, nil
	case errors.As(err, &big):
		note := fmt.Sprintf("the %s is larger than the limit of %s as JSON, so only the start of its repr is returned", what, core.FormatBytes(limits.MaxValue))
		if s, ok := v.(starlark.String); ok {
			n := runePrefixLen(string(s), int(limits.MaxValue))
			note = fmt.Sprintf("the %s is a string larger than the limit of %s, so only its first %d bytes are returned", what, core.FormatBytes(limits.MaxValue), n)
			return string(s[:n]) + fmt.Sprintf("\n[%s truncated: %d of its %d bytes are kept]", what, n, len(s)), repr, []string{note}, nil
		}
		return short(), repr, []string{note}, nil
	case !core.Catchable(err):
		return nil, "", nil, err // the deadline, the engine's limits
	}
	typ, _ := core.Classify(err)
	if typ == "MemoryError" {
		return short(), repr, []string{fmt.Sprintf("the %s cannot be converted within the memory limit, so only its repr is returned", what)}, nil
	}
	if typ == "TypeError" || typ == "ValueError" {
		return repr, repr, nil, nil // not JSON-shaped: the repr stands for it
	}
	return nil, "", nil, err // a user __str__ of a dict key raised
}

// runePrefixLen returns the length of the longest prefix of s of at most n
// bytes that does not cut a character.
func runePrefixLen(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

func (st *state) checkImport(module string) *executors.ExecError {
	if ee := st.policy.Check(module); ee != nil {
		ee.Type = refusalType(ee.Type, module)
		return ee
	}
	if _, ok := st.module(module); !ok {
		return &executors.ExecError{Type: "ModuleNotFoundError", Message: needsPythonMessage(module), NeedsPython: true, Hint: executors.NeedsPythonHint}
	}
	return nil
}

// captureLastExpression makes a final expression statement assign its
// value to a hidden global, so that Result.Value is the value of the last
// expression, as in a Python REPL.
func captureLastExpression(f *syntax.File) {
	if len(f.Stmts) == 0 {
		return
	}
	last, ok := f.Stmts[len(f.Stmts)-1].(*syntax.ExprStmt)
	if !ok || isDelGlobal(last.X) {
		return
	}
	start, _ := last.X.Span()
	f.Stmts[len(f.Stmts)-1] = &syntax.AssignStmt{
		OpPos: start,
		Op:    syntax.EQ,
		LHS:   &syntax.Ident{NamePos: start, Name: lastValue},
		RHS:   last.X,
	}
}

// isDelGlobal reports whether x is a lowered del statement, which has no
// value to show.
func isDelGlobal(x syntax.Expr) bool {
	call, ok := x.(*syntax.CallExpr)
	if !ok {
		return false
	}
	fn, ok := call.Fn.(*syntax.Ident)
	return ok && fn.Name == contract.HelperDelGlobal
}

// undefinedNames returns the names of an error that is only "undefined:"
// resolution errors, or nil.
func undefinedNames(err error) []string {
	var rerrs resolve.ErrorList
	if !errors.As(err, &rerrs) {
		return nil
	}
	var names []string
	for _, r := range rerrs {
		name, ok := strings.CutPrefix(r.Msg, "undefined: ")
		if !ok {
			return nil
		}
		name, _, _ = strings.Cut(name, " ") // drop "(did you mean x?)"
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// declareUnbound prepends "if False: name = None" for each name: the
// names become globals of the chunk that are never bound, so that reading
// one fails at run time, where Python would raise NameError. (With global
// reassignment on, the resolver binds top-level uses at once, so the
// declaration must come first.)
func declareUnbound(f *syntax.File, names []string) {
	var pos syntax.Position
	if len(f.Stmts) > 0 {
		pos, _ = f.Stmts[0].Span()
	}
	decls := make([]syntax.Stmt, 0, len(names)+len(f.Stmts))
	for _, name := range names {
		decls = append(decls, &syntax.IfStmt{
			If:   pos,
			Cond: &syntax.Ident{NamePos: pos, Name: "False"},
			True: []syntax.Stmt{&syntax.AssignStmt{
				OpPos: pos, Op: syntax.EQ,
				LHS: &syntax.Ident{NamePos: pos, Name: name},
				RHS: &syntax.Ident{NamePos: pos, Name: "None"},
			}},
		})
	}
	f.Stmts = append(decls, f.Stmts...)
}

// maxCode is the longest code one execution accepts under a memory budget.
// The front end and the compiler allocate up to about 1 KB per source byte
// on the worst inputs (measured by pyfront's BenchmarkChains and the
// nesting tests), all of it before the code runs, so the size of the code
// is what bounds them. Model-written actions are a few KB.
func maxCode(budget int64) int {
	return int(max(budget/1024, 64<<10))
}
