package builtins_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/builtins"
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/internal/cpythontest"
	"github.com/star-agent/star-agent/pyfront"
	"go.starlark.net/starlark"
)

// Running Python programs through the front end and this runtime, as the
// engine does, for the module tests that need Python syntax (classes,
// try/except). Their expected output is CPython 3.11's; runCases confirms
// it with python3 where cpythontest.ToCheck says so.

// pyCase is a Python program and what CPython 3.11 prints running it.
type pyCase struct {
	name, src, want string
}

// runPython lowers and runs src with the builtins universe, returning
// what it printed.
func runPython(t *testing.T, src string) (string, error) {
	t.Helper()
	prog, err := pyfront.Lower("test.py", src)
	if err != nil {
		return "", err
	}
	globals := testGlobals()
	th := &starlark.Thread{Name: "test"}
	th.SetMaxExecutionSteps(1e7)
	core.SetBudget(th, &core.Budget{Limit: 64 << 20})
	var out strings.Builder
	th.SetLocal(contract.StdoutKey, &out)
	err = starlark.ExecREPLChunk(prog.File, th, globals)
	return out.String(), err
}

// testGlobals are the predeclared names of lowered code: the builtins
// universe, the runtime helpers and an import of every module.
func testGlobals() starlark.StringDict {
	globals := starlark.StringDict{}
	for k, v := range builtins.Universe() {
		globals[k] = v
	}
	for k, v := range builtins.Runtime() {
		globals[k] = v
	}
	globals[contract.HelperImport] = starlark.NewBuiltin(contract.HelperImport, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		name, _ := starlark.AsString(args[0])
		if m, ok := builtins.Module(name); ok {
			return m, nil
		}
		return nil, core.Errorf(pyexc.ModuleNotFoundError, "No module named '%s'", name)
	})
	return globals
}

// runCases runs each case and compares its output with the expected one,
// CPython 3.11's, written in the case. When cpythontest.ToCheck gives a
// python3 (the recorded version, or any with -check-cpython), it also runs
// the case and fails if CPython does not print the expected output, so that
// the expectations stay CPython's.
func runCases(t *testing.T, cases []pyCase) {
	t.Helper()
	runCasesWith(t, cases, cpythontest.ToCheck(t))
}

// runCasesWith is runCases checking the expected outputs with python3 py,
// or not at all if py is "".
func runCasesWith(t *testing.T, cases []pyCase, py string) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := runPython(t, c.src)
			if err != nil {
				typ, msg := core.Classify(err)
				got += "<" + typ + ": " + msg + ">\n"
			}
			if got != c.want {
				t.Errorf("output differs\n got: %q\nwant: %q", got, c.want)
			}
			if py == "" {
				return
			}
			out, err := exec.Command(py, "-c", c.src).CombinedOutput()
			if err != nil {
				t.Fatalf("python3: %v\n%s", err, out)
			}
			if string(out) != c.want {
				t.Errorf("CPython prints\n%q\nthe test expects\n%q", out, c.want)
			}
		})
	}
}
