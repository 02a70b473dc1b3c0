package starlarkexec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/internal/cpythontest"
	"github.com/star-agent/star-agent/tool"
)

// stepSep separates the steps of a file under testdata/steps.
const stepSep = "\n# --- step\n"

// stepsDriver runs each file given in one CPython namespace, a step at a
// time, as an agent's code actions share one module, and prints a JSON
// object per step: its output and the type of the exception it raised.
const stepsDriver = `
import contextlib, io, json, os, sys
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        steps = f.read().split("\n# --- step\n")
    ns = {"__name__": "__main__", "__builtins__": __builtins__}
    for i, src in enumerate(steps, 1):
        out, exc = io.StringIO(), ""
        with contextlib.redirect_stdout(out):
            try:
                exec(compile(src, "<step %d>" % i, "exec"), ns)
            except Exception as e:
                exc = type(e).__name__
        print(json.dumps({"file": os.path.basename(path), "step": i, "stdout": out.getvalue(), "exc": exc}))
`

type stepOutcome struct {
	File   string `json:"file"`
	Step   int    `json:"step"`
	Stdout string `json:"stdout"`
	Exc    string `json:"exc"`
}

// TestStepsMatchCPython runs the files under testdata/steps a step at a
// time in one executor, as an agent's code actions, and compares each
// step's output and exception type with what CPython printed running the
// same steps in one module namespace (testdata/steps.out; -update
// regenerates it). Package isolation runs the same files in a child
// process.
func TestStepsMatchCPython(t *testing.T) {
	files, err := filepath.Glob("testdata/steps/*.py")
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in testdata/steps (%v)", err)
	}
	raw := cpythontest.Golden(t, "testdata/steps.out", func(py string) ([]byte, error) {
		cmd := exec.Command(py, append([]string{"-c", stepsDriver}, files...)...)
		cmd.Stderr = os.Stderr
		return cmd.Output()
	})
	want := map[string][]stepOutcome{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var o stepOutcome
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("testdata/steps.out: %v", err)
		}
		want[o.File] = append(want[o.File], o)
	}
	for _, path := range files {
		name := filepath.Base(path)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		steps := strings.Split(string(src), stepSep)
		if len(want[name]) != len(steps) {
			t.Errorf("%s: %d steps, testdata/steps.out has %d (regenerate it with -update)", name, len(steps), len(want[name]))
			continue
		}
		e := newTestExecutor(t, Options{})
		for i, step := range steps {
			res, err := e.Execute(context.Background(), step)
			if err != nil {
				t.Fatalf("%s step %d: %v", name, i+1, err)
			}
			exc, msg := "", ""
			if res.Err != nil {
				exc, msg = res.Err.Type, res.Err.Message
			}
			w := want[name][i]
			if res.Stdout != w.Stdout || exc != w.Exc {
				t.Errorf("%s step %d:\n got stdout %q exception %q (%s)\nwant stdout %q exception %q (CPython)", name, i+1, res.Stdout, exc, msg, w.Stdout, w.Exc)
			}
		}
	}
}

// TestGlobalsFromEarlierStepsAreBounded: a function of an earlier step
// that grows a global through a global statement is held to the memory
// limit like any code, and the executor goes on with what was assigned
// before the limit stopped it.
func TestGlobalsFromEarlierStepsAreBounded(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{Timeout: 5 * time.Second, MaxMemory: 64 << 20}})
	run(t, e, "big = []\nrounds = 0\ndef grow():\n    global big, rounds\n    big = big + ['x' * 1000] * 1000\n    rounds += 1")
	res := run(t, e, "while True:\n    grow()")
	if res.Err == nil || res.Err.Type != "MemoryError" {
		t.Fatalf("got %+v, want MemoryError", res.Err)
	}
	res = run(t, e, "print(rounds > 0, len(big) == 1000 * rounds)\nbig = None")
	if res.Err != nil || res.Stdout != "True True\n" {
		t.Fatalf("after the limit: %q %+v", res.Stdout, res.Err)
	}
}

// TestStepModulesAreReleased: the namespace does not keep alive the
// modules of steps whose functions are gone, and keeps reaching those
// whose functions live.
func TestStepModulesAreReleased(t *testing.T) {
	e := newTestExecutor(t, Options{})
	run(t, e, "one = 1\ndef keep():\n    return one")
	for i := 0; i < 20; i++ {
		run(t, e, fmt.Sprintf("x = %d", i))
	}
	res := run(t, e, "del x")
	if res.Err != nil || res.Repr != "" {
		t.Fatalf("del x: repr %q, %+v (a del statement has no value)", res.Repr, res.Err)
	}
	runtime.GC()
	run(t, e, "y = keep()") // prunes the modules found gone
	// Steps that define no function are forgotten when they end, whatever
	// the collector did: only keep's module is left.
	if n := e.st.ns.Modules(); n != 1 {
		t.Errorf("the namespace reaches %d step modules; want keep's only", n)
	}

}

// TestStepModulesOfFunctionsReadingNoGlobal: a step whose functions
// read no global (an agent's typical step, which redefines its helper
// every time) leaves no module for later steps to keep up to date, even
// before a collection frees it; one whose function reads a global stays,
// and its function sees the global rebound.
func TestStepModulesOfFunctionsReadingNoGlobal(t *testing.T) {
	e := newTestExecutor(t, Options{})
	for i := 0; i < 50; i++ {
		run(t, e, "def total(rows, start=0):\n    t = start\n    for r in rows:\n        t += r\n    return t\nkey = lambda kv: kv[1]\ns = total([1, 2, 3])")
	}
	if n := e.st.ns.Modules(); n != 0 {
		t.Errorf("after 50 steps whose functions read no global, the namespace reaches %d step modules; want 0", n)
	}
	run(t, e, "scale = 2\ndef scaled(v):\n    return v * scale")
	run(t, e, "def other(v):\n    return v")
	run(t, e, "scale = 10")
	if res := run(t, e, "scaled(3)"); res.Err != nil || res.Repr != "30" {
		t.Fatalf("scaled(3) after scale = 10: %q %+v; want 30", res.Repr, res.Err)
	}
	runtime.GC()
	run(t, e, "y = 1") // prunes the modules found gone
	if n := e.st.ns.Modules(); n != 1 {
		t.Errorf("the namespace reaches %d step modules; want scaled's only", n)
	}
}

// TestEarlierFunctionCannotRebindLaterTool: a function defined before a
// tool of the same name was set cannot assign or delete the tool through
// a global statement, as no step can.
func TestEarlierFunctionCannotRebindLaterTool(t *testing.T) {
	e := newTestExecutor(t, Options{})
	run(t, e, "def shadow():\n    global lookup\n    lookup = 1\ndef drop():\n    global lookup\n    del lookup")
	if err := e.SetTools(context.Background(), []tool.Tool{&echoTool{}}); err != nil {
		t.Fatal(err)
	}
	for _, call := range []string{"shadow()", "drop()"} {
		res := run(t, e, call)
		if res.Err == nil || res.Err.Type != "SyntaxError" || !strings.Contains(res.Err.Message, "lookup is a tool of this agent") {
			t.Errorf("%s: %+v, want the tool refused", call, res.Err)
		}
	}
	if res := run(t, e, "lookup('x')['key']"); res.Err != nil || res.Repr != "'x'" {
		t.Errorf("the tool after the attempts: %+v %s", res.Err, res.Repr)
	}
}
