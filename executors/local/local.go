// Package local is the Starlark engine: it runs model-written Python in
// go.starlark.net, in process, under step, time, memory, output and
// recursion limits.
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
package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/star-agent/star-agent/builtins"
	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/local/pyfront"
	"github.com/star-agent/star-agent/starlarkagent/tool"
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
}

// Executor runs code actions in the Starlark engine. It keeps variables and
// functions between executions. Executions of one Executor are serialised;
// use one Executor per agent.
type Executor struct {
	limits executors.Limits
	policy executors.ImportPolicy
	live   io.Writer

	mu      sync.Mutex // held for the whole of an execution
	globals starlark.StringDict
	base    map[string]starlark.Value // predeclared values, to tell them from user state
	tools   map[string]tool.Tool
	defs    map[*starlark.Function]definition // sources of top-level defs, for relinking
	modules map[string]starlark.Value         // imported modules: one instance per executor, as in Python
	chunk   int                               // executions so far, names each chunk "<step N>"
	closed  bool                              // Close was called
	busy    string                            // non-empty while an abandoned execution still runs
}

// New returns an Executor with the given options.
func New(opts Options) (*Executor, error) {
	if err := opts.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	e := &Executor{
		limits:  opts.Limits.WithDefaults(),
		policy:  executors.NewImportPolicy(opts.AuthorizedImports, executors.NeverImportable),
		live:    opts.Stdout,
		tools:   map[string]tool.Tool{},
		defs:    map[*starlark.Function]definition{},
		modules: map[string]starlark.Value{},
	}
	e.globals = starlark.StringDict{}
	for k, v := range builtins.Universe() {
		e.globals[k] = v
	}
	for k, v := range builtins.Runtime() {
		e.globals[k] = v
	}
	e.globals["final_answer"] = starlark.NewBuiltin("final_answer", finalAnswer)
	e.globals[builtins.HelperImport] = starlark.NewBuiltin(builtins.HelperImport, e.importModule)
	e.resetBase()
	return e, nil
}

// universe is the builtins as predeclared, to tell when the program
// has rebound one of their names.
var universe = builtins.Universe()

// rebound reports whether the globals bind name to something other than
// the builtin of that name (a user's len = ..., or a tool called len).
// The front end then trusts no builtin of that name.
func (e *Executor) rebound(name string) bool {
	v, ok := e.globals[name]
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

func (e *Executor) resetBase() {
	e.base = make(map[string]starlark.Value, len(e.globals))
	for k, v := range e.globals {
		e.base[k] = v
	}
}

// Policy returns the executor's import policy.
func (e *Executor) Policy() executors.ImportPolicy { return e.policy }

// Limits returns the executor's limits, defaults filled in.
func (e *Executor) Limits() executors.Limits { return e.limits }

func finalAnswer(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var answer starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "answer", &answer); err != nil {
		return nil, builtins.Errorf("TypeError", "%s", strings.TrimPrefix(err.Error(), "final_answer: "))
	}
	return nil, &builtins.Final{Value: answer}
}

func (e *Executor) importModule(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var top bool
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &name, &top); err != nil {
		return nil, err
	}
	if ee := e.policy.Check(name); ee != nil {
		return nil, &builtins.Error{Type: ee.Type, Msg: ee.Message}
	}
	if top {
		name, _, _ = strings.Cut(name, ".")
	}
	m, ok := e.module(name)
	if !ok {
		return nil, builtins.Errorf("ModuleNotFoundError", "%s", needsPythonMessage(name))
	}
	return m, nil
}

// module returns the executor's instance of a module, creating it on first
// use: every import of random in one executor shares one generator. Called
// with the executor locked.
func (e *Executor) module(name string) (starlark.Value, bool) {
	if m, ok := e.modules[name]; ok {
		return m, true
	}
	m, ok := builtins.Module(name)
	if ok {
		e.modules[name] = m
	}
	return m, ok
}

func needsPythonMessage(module string) string {
	return fmt.Sprintf("module '%s' is authorized but the Starlark engine does not provide it; this code needs full Python (configure a Python executor, e.g. --executor wasm)", module)
}

// SetTools makes tools callable from code as functions, by their names.
// Arguments may be positional (in input order) or keyword.
func (e *Executor) SetTools(tools []tool.Tool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range tools {
		spec := t.Spec()
		if !isIdentifier(spec.Name) || strings.HasPrefix(spec.Name, "__") {
			return fmt.Errorf("local: tool name %q is not a valid Python identifier", spec.Name)
		}
		if spec.Name == "final_answer" || spec.Name == "print" {
			return fmt.Errorf("local: tool name %q is reserved", spec.Name)
		}
		e.tools[spec.Name] = t
		e.globals[spec.Name] = starlark.NewBuiltin(spec.Name, e.callTool(t))
	}
	e.resetBase()
	return nil
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func isIdentifier(s string) bool { return identRE.MatchString(s) }

const ctxKey = "star-agent.ctx"

func (e *Executor) callTool(t tool.Tool) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		spec := t.Spec()
		pos := make([]any, len(args))
		for i, a := range args {
			v, err := builtins.ToGo(a)
			if err != nil {
				return nil, err
			}
			pos[i] = v
		}
		kw := make(map[string]any, len(kwargs))
		for _, kv := range kwargs {
			v, err := builtins.ToGo(kv[1])
			if err != nil {
				return nil, err
			}
			kw[string(kv[0].(starlark.String))] = v
		}
		bound, err := tool.Bind(spec, pos, kw)
		if err != nil {
			return nil, builtins.Errorf("TypeError", "%v", err)
		}
		ctx, _ := thread.Local(ctxKey).(context.Context)
		if ctx == nil {
			ctx = context.Background()
		}
		out, err := t.Call(ctx, bound)
		if err != nil {
			if ctx.Err() != nil {
				return nil, &builtins.Interrupt{Reason: "cancelled"}
			}
			var be *builtins.Error
			if errors.As(err, &be) {
				return nil, be
			}
			// As in smolagents, str(e) is the tool's own message; the
			// type says it came from a tool.
			return nil, builtins.Errorf("ToolError", "%v", err)
		}
		v, err := builtins.FromGo(out)
		if err != nil {
			return nil, builtins.Errorf("ToolError", "tool %s returned a value that cannot be used: %v", spec.Name, err)
		}
		return v, nil
	}
}

// SetVariables binds values as global variables of the code: JSON-shaped
// Go values, the runner protocol's Tuple, Set and Dict (as another engine's
// Variables returns them), or anything that marshals to JSON.
func (e *Executor) SetVariables(vars map[string]any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for name, x := range vars {
		if !isIdentifier(name) || strings.HasPrefix(name, "__") {
			return fmt.Errorf("local: variable name %q is not a valid Python identifier", name)
		}
		v, err := importValue(x)
		if err != nil {
			return fmt.Errorf("local: variable %s: %w", name, err)
		}
		e.globals[name] = v
	}
	return nil
}

// Variables returns the code's global variables that can be represented as
// JSON-shaped Go values, and for those that cannot (functions, modules,
// objects) why. Routers use it to carry state to another engine.
func (e *Executor) Variables(context.Context) (vars map[string]any, skipped map[string]string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	vars, skipped = map[string]any{}, map[string]string{}
	for name, v := range e.globals {
		if b, ok := e.base[name]; ok && b == v {
			continue
		}
		if strings.HasPrefix(name, "__") {
			continue
		}
		x, err := exportValue(v, 0)
		if err != nil {
			_, skipped[name] = builtins.Classify(err)
			continue
		}
		vars[name] = x
	}
	return vars, skipped, nil
}

// Close releases the executor. Later executions fail.
func (e *Executor) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	e.globals = nil
	return nil
}

// lastValue is the hidden global that receives the value of a final
// expression statement.
const lastValue = "__sa_last"

// Execute runs code with the executor's state and limits. The returned
// error is non-nil only when ctx was cancelled by the caller (the Result
// still describes what ran) or the executor is closed.
func (e *Executor) Execute(ctx context.Context, code string) (executors.Result, error) {
	start := time.Now()
	res := executors.Result{Engine: Engine}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return res, errors.New("local: executor is closed")
	}
	e.chunk++
	name := fmt.Sprintf("<step %d>", e.chunk)

	prog, err := pyfront.LowerIn(name, code, e.rebound)
	if err != nil {
		e.mu.Unlock()
		res.Err = frontEndError(err, code)
		res.Duration = time.Since(start)
		return res, nil
	}
	for _, imp := range prog.Imports {
		res.Imports = append(res.Imports, imp.Module)
		if ee := e.checkImport(imp.Module); ee != nil {
			e.mu.Unlock()
			ee.Line = imp.Line
			ee.Source = sourceLine(code, imp.Line)
			res.Err = ee
			res.Duration = time.Since(start)
			return res, nil
		}
	}
	c := &chunk{name: name, code: code, prog: prog}
	c.prelude = e.prelude(topLevelBindings(prog.File.Stmts))

	limits := e.limits
	runCtx, cancel := context.WithTimeout(ctx, limits.Timeout)
	printed := newOutput(limits.MaxOutput, e.live)
	thread := &starlark.Thread{
		Name:  "star-agent",
		Print: func(_ *starlark.Thread, msg string) { printed.WriteString(msg + "\n") },
	}
	thread.SetLocal(ctxKey, runCtx)
	if deadline, ok := runCtx.Deadline(); ok {
		thread.SetLocal(builtins.DeadlineKey, deadline)
	}
	thread.SetLocal("star-agent.stdout", io.Writer(printed))
	mon := newMonitor(thread, e.globals, limits, runCtx)
	mon.install()

	// Cancel the thread when the deadline passes or the caller cancels.
	watchDone := make(chan struct{})
	stopWatch := context.AfterFunc(runCtx, func() {
		defer close(watchDone)
		mon.cancel(mon.reason())
	})

	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{err: fmt.Errorf("internal error: %v\n%s", p, debug.Stack())}
			}
		}()
		done <- e.execChunk(thread, c)
	}()

	var out outcome
	abandoned := false
	select {
	case out = <-done:
	case <-runCtx.Done():
		// The thread stops at its next step; a builtin that does not check
		// for cancellation may hold it longer. Give it a short grace, then
		// return anyway and let the execution finish in the background:
		// the executor stays locked until it does.
		select {
		case out = <-done:
		case <-time.After(50 * time.Millisecond):
			abandoned = true
		}
	}
	if !stopWatch() {
		<-watchDone // the watcher reads the monitor's state
	}
	mon.ctxErr = runCtx.Err() // before cancel, which would end runCtx anyway
	cancel()

	res.Stdout = printed.String()
	res.Truncated = printed.truncated()
	if abandoned {
		res.Steps = thread.ExecutionSteps()
		res.Err = &executors.ExecError{Type: "TimeoutError", Message: mon.timeoutMessage()}
		go func() {
			e.settle(<-done)
			mon.closeGenerators()
			e.mu.Unlock()
		}()
	} else {
		res.Steps = mon.steps()
		e.finish(&res, out.err, mon, name, code)
		mon.closeGenerators()
		e.settle(out)
		e.mu.Unlock()
	}
	res.Duration = time.Since(start)
	if ctx.Err() != nil {
		return res, fmt.Errorf("local: execution stopped: %w", ctx.Err())
	}
	return res, nil
}

// outcome is what running a chunk gave.
type outcome struct {
	file       *syntax.File // as it ran
	preludeLen int          // statements of file before the user's code
	chunk      *chunk
	unbound    []string // names undefined when it was compiled
	err        error
}

// finish fills res from the outcome of an execution.
func (e *Executor) finish(res *executors.Result, runErr error, mon *monitor, chunk, code string) {
	var final *builtins.Final
	switch {
	case runErr == nil:
		if v, ok := e.globals[lastValue]; ok {
			res.Value, res.Repr = export(v)
		}
	case errors.As(runErr, &final):
		res.IsFinal = true
		res.Value, res.Repr = export(final.Value)
	default:
		res.Err = runtimeError(runErr, mon, chunk, code)
	}
}

// export converts a value for Result: JSON-shaped when possible, else its repr.
func export(v starlark.Value) (any, string) {
	repr := builtins.Repr(v)
	x, err := builtins.ToGo(v)
	if err != nil {
		return repr, repr
	}
	return x, repr
}

func (e *Executor) checkImport(module string) *executors.ExecError {
	if ee := e.policy.Check(module); ee != nil {
		return ee
	}
	if _, ok := e.module(module); !ok {
		return &executors.ExecError{Type: "ModuleNotFoundError", Message: needsPythonMessage(module), NeedsPython: true}
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
	if !ok {
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

var unboundRE = regexp.MustCompile(`^(global|local) variable (\w+) referenced before assignment$`)

// pythonNameError rewrites go.starlark.net's unbound-variable errors in
// CPython's words.
func pythonNameError(typ, msg string) (string, string) {
	m := unboundRE.FindStringSubmatch(msg)
	if m == nil {
		return typ, msg
	}
	if m[1] == "local" {
		return "UnboundLocalError", fmt.Sprintf("cannot access local variable '%s' where it is not associated with a value", m[2])
	}
	return "NameError", fmt.Sprintf("name '%s' is not defined", m[2])
}

// frontEndError converts an error of the front end.
func frontEndError(err error, code string) *executors.ExecError {
	var fe *pyfront.Error
	if errors.As(err, &fe) {
		typ := "SyntaxError"
		if t := frontEndType(fe); t != "" {
			typ = t
		}
		return &executors.ExecError{Type: typ, Message: fe.Msg, Line: fe.Line, Source: sourceLine(code, fe.Line), NeedsPython: fe.NeedsPython}
	}
	return &executors.ExecError{Type: "SyntaxError", Message: err.Error()}
}

// runtimeError converts an error of the interpreter or of resolution.
func runtimeError(err error, mon *monitor, chunk, code string) *executors.ExecError {
	var rerrs resolve.ErrorList
	if errors.As(err, &rerrs) && len(rerrs) > 0 {
		r := rerrs[0]
		typ, msg := "SyntaxError", r.Msg
		if name, ok := strings.CutPrefix(r.Msg, "undefined: "); ok {
			typ, msg = "NameError", fmt.Sprintf("name '%s' is not defined", name)
		}
		line := int(r.Pos.Line)
		return &executors.ExecError{Type: typ, Message: msg, Line: line, Source: sourceLine(code, line)}
	}
	if stop := mon.stopError(); stop != nil {
		err = stop
	}
	typ, msg := pythonNameError(builtins.Classify(err))
	ee := &executors.ExecError{Type: typ, Message: msg}
	var eval *starlark.EvalError
	if errors.As(err, &eval) {
		for i := len(eval.CallStack) - 1; i >= 0; i-- {
			fr := eval.CallStack[i]
			if fr.Pos.Filename() == chunk {
				ee.Line = int(fr.Pos.Line)
				break
			}
		}
		ee.Traceback = traceback(eval, typ, msg)
	}
	ee.Source = sourceLine(code, ee.Line)
	return ee
}

// traceback renders a Python-style traceback of an evaluation error.
func traceback(e *starlark.EvalError, typ, msg string) string {
	var b strings.Builder
	b.WriteString("Traceback (most recent call last):\n")
	for _, fr := range e.CallStack {
		if fr.Pos.Filename() == "<builtin>" {
			continue
		}
		name := fr.Name
		if name == "<toplevel>" {
			name = "<module>"
		}
		fmt.Fprintf(&b, "  File \"%s\", line %d, in %s\n", fr.Pos.Filename(), fr.Pos.Line, name)
	}
	fmt.Fprintf(&b, "%s: %s", typ, msg)
	return b.String()
}

// sourceLine returns line n (1-based) of code, trimmed, or "".
func sourceLine(code string, n int) string {
	if n <= 0 {
		return ""
	}
	lines := strings.Split(code, "\n")
	if n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}
