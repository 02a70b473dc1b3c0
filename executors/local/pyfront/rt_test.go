package pyfront

// Running lowered code with the real runtime (package builtins), for the
// constructs whose semantics live there: exceptions and classes.

import (
	"errors"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/syntax"

	"github.com/star-agent/star-agent/builtins"
	"go.starlark.net/starlark"
)

// runtimeMarker on the first line of a testdata/run file selects the real
// runtime instead of the test doubles.
const runtimeMarker = "# runtime: builtins"

// runReal lowers and runs src as the engine does (one REPL chunk with
// the builtins universe and runtime helpers), returning what it printed.
func runReal(src string) (string, error) {
	return runRealOn(&starlark.Thread{Name: "test"}, src)
}

// runRealOn is runReal on a given thread, which also gets final_answer.
func runRealOn(th *starlark.Thread, src string) (string, error) {
	prog, err := Lower("test.py", src)
	if err != nil {
		return "", err
	}
	globals := starlark.StringDict{}
	for k, v := range builtins.Universe() {
		globals[k] = v
	}
	for k, v := range builtins.Runtime() {
		globals[k] = v
	}
	globals[builtins.HelperImport] = starlark.NewBuiltin(builtins.HelperImport, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		name, _ := starlark.AsString(args[0])
		if m, ok := builtins.Module(name); ok {
			return m, nil
		}
		return nil, builtins.Errorf("ModuleNotFoundError", "No module named '%s'", name)
	})
	globals["final_answer"] = starlark.NewBuiltin("final_answer", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return nil, &builtins.Final{Value: args[0]}
	})
	var out strings.Builder
	th.SetLocal(builtins.StdoutKey, &out)
	if th.OnMaxSteps == nil {
		th.SetMaxExecutionSteps(1e7)
	}
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
