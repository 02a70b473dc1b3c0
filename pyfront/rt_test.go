package pyfront

import (
	"errors"
	"strings"

	"github.com/star-agent/star-agent/builtins"
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/resolve"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// The tests run lowered code with the real runtime (package builtins),
// wired as executors/starlarkexec wires it, so that what they check is what
// the engine does: no test doubles of the helpers.

// run lowers and runs src as the engine does (one REPL chunk with the
// builtins universe and runtime helpers), returning what it printed.
func run(src string) (string, error) {
	return runOn(&starlark.Thread{Name: "test"}, src)
}

// runOn is run on a given thread.
func runOn(th *starlark.Thread, src string) (string, error) {
	prog, err := Lower("test.py", src)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	th.SetLocal(contract.StdoutKey, &out)
	if th.OnMaxSteps == nil {
		th.SetMaxExecutionSteps(1e7)
	}
	globals := predeclared()
	err = starlark.ExecREPLChunk(prog.File, th, globals)
	var rerrs resolve.ErrorList
	if errors.As(err, &rerrs) {
		// As the engine does: names nothing defines become unbound
		// globals, so that reading one fails at run time (NameError).
		prog, _ = Lower("test.py", src)
		at := prog.File.Stmts[0].(*syntax.ExprStmt).X.(*syntax.CallExpr).Lparen
		for _, r := range rerrs {
			name, ok := strings.CutPrefix(r.Msg, "undefined: ")
			if !ok {
				return "", err
			}
			decl := &syntax.IfStmt{If: at, Cond: &syntax.Ident{NamePos: at, Name: "False"}, True: []syntax.Stmt{
				&syntax.AssignStmt{OpPos: at, Op: syntax.EQ, LHS: &syntax.Ident{NamePos: at, Name: name}, RHS: &syntax.Ident{NamePos: at, Name: "None"}},
			}}
			prog.File.Stmts = append([]syntax.Stmt{decl}, prog.File.Stmts...)
		}
		err = starlark.ExecREPLChunk(prog.File, th, globals)
	}
	return out.String(), err
}

// predeclared returns what a program starts with in the engine: the
// builtins universe, the runtime helpers (of one Runtime, so that they
// share its state), the import helper and final_answer. print writes to
// the thread's contract.StdoutKey local.
func predeclared() starlark.StringDict {
	globals := starlark.StringDict{}
	for k, v := range builtins.Universe() {
		globals[k] = v
	}
	for k, v := range builtins.Runtime() {
		globals[k] = v
	}
	globals[contract.HelperImport] = importModule()
	globals["final_answer"] = starlark.NewBuiltin("final_answer", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var v starlark.Value
		if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &v); err != nil {
			return nil, err
		}
		return nil, &core.Final{Value: v}
	})
	return globals
}

// importModule returns contract.HelperImport as executors/starlarkexec provides
// it, without the import policy: every module of the engine may be
// imported, and every import of a module in one run returns the same
// instance.
func importModule() *starlark.Builtin {
	modules := map[string]starlark.Value{}
	return starlark.NewBuiltin(contract.HelperImport, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var name string
		var top bool
		if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &name, &top); err != nil {
			return nil, err
		}
		if top {
			name, _, _ = strings.Cut(name, ".")
		}
		if m, ok := modules[name]; ok {
			return m, nil
		}
		m, ok := builtins.Module(name)
		if !ok {
			return nil, core.Errorf(pyexc.ModuleNotFoundError, "No module named '%s'", name)
		}
		modules[name] = m
		return m, nil
	})
}
