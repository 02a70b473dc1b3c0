// Package builtinstest runs programs against the builtins runtime for the
// tests of package builtins and of its modules (builtins/lib/...): Python
// programs through the front end, as the engine runs them, compared with
// CPython 3.11's output, and expressions in the Starlark dialect with the
// runtime's helpers under short names. It is for tests only.
package builtinstest

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/builtins"
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/internal/cpythontest"
	"github.com/star-agent/star-agent/pyfront"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Case is a Python program and what CPython 3.11 prints running it.
type Case struct {
	Name, Src, Want string
}

// Run lowers and runs src with the builtins universe, returning what it
// printed.
func Run(t *testing.T, src string) (string, error) {
	t.Helper()
	prog, err := pyfront.Lower("test.py", src)
	if err != nil {
		return "", err
	}
	globals := Globals()
	th := &starlark.Thread{Name: "test"}
	th.SetMaxExecutionSteps(1e7)
	core.SetBudget(th, &core.Budget{Limit: 64 << 20})
	var out strings.Builder
	th.SetLocal(contract.StdoutKey, &out)
	err = starlark.ExecPythonChunk(prog.File, th, globals)
	return out.String(), err
}

// Globals are the predeclared names of lowered code: the builtins
// universe, the runtime helpers and an import of every module.
func Globals() starlark.StringDict {
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

// RunCases runs each case and compares its output with the expected one,
// CPython 3.11's, written in the case. When cpythontest.ToCheck gives a
// python3 (the recorded version, or any with -check-cpython), it also runs
// the case and fails if CPython does not print the expected output, so that
// the expectations stay CPython's.
func RunCases(t *testing.T, cases []Case) {
	t.Helper()
	RunCasesWith(t, cases, cpythontest.ToCheck(t))
}

// RunCasesWith is RunCases checking the expected outputs with python3 py,
// or not at all if py is "".
func RunCasesWith(t *testing.T, cases []Case, py string) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got, err := Run(t, c.Src)
			if err != nil {
				typ, msg := core.Classify(err)
				got += "<" + typ + ": " + msg + ">\n"
			}
			if got != c.Want {
				t.Errorf("output differs\n got: %q\nwant: %q", got, c.Want)
			}
			if py == "" {
				return
			}
			out, err := exec.Command(py, "-c", c.Src).CombinedOutput()
			if err != nil {
				t.Fatalf("python3: %v\n%s", err, out)
			}
			if string(out) != c.Want {
				t.Errorf("CPython prints\n%q\nthe test expects\n%q", out, c.Want)
			}
		})
	}
}

// FileOptions is the Starlark dialect of the expressions evaluated in Env.
var FileOptions = &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true}

// Env is the builtins universe, the runtime helpers and every module for
// Starlark-dialect code, with short aliases for the helpers that
// expressions spell out: A(x, "m") is x.m, F(v, conv, spec) an f-string
// field, P, M and MOD are **, * and %, IS is the is operator.
func Env() starlark.StringDict {
	env := builtins.Universe()
	for k, v := range builtins.Runtime() {
		env[k] = v
	}
	for _, name := range builtins.ModuleNames() {
		m, _ := builtins.Module(name)
		env[name] = m
	}
	env["A"] = env[contract.HelperAttr]
	env["F"] = env[contract.HelperFormat]
	env["P"] = env[contract.HelperPow]
	env["M"] = env[contract.HelperMul]
	env["MOD"] = env[contract.HelperMod]
	env["IS"] = env[contract.HelperIs]
	return env
}

// PythonJSON decodes the JSON value a Python program prints, stored in
// the test's package at testdata/cpython/<test name>.json.gz (see
// cpythontest.Golden). CPython runs it with TZ=UTC, as in the corpus
// harness.
func PythonJSON(t *testing.T, prog string, v any) {
	t.Helper()
	path := filepath.Join("testdata", "cpython", t.Name()+".json.gz")
	out := cpythontest.Golden(t, path, func(py string) ([]byte, error) { return cpythontest.Run(py, prog, "TZ=UTC") })
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
