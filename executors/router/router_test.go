package router

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/isolation"
	"github.com/star-agent/star-agent/executors/runner"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/executors/wasm"
	"github.com/star-agent/star-agent/tool"
)

func newRouter(t *testing.T) *Router {
	t.Helper()
	return newRouterIn(t, isolation.None)
}

// newRouterIn is newRouter with the Starlark engine in the given
// isolation mode.
func newRouterIn(t *testing.T, mode string) *Router {
	t.Helper()
	imports := []string{"difflib"}
	var l Local
	var err error
	if mode == isolation.Process {
		l, err = isolation.New(isolation.Options{AuthorizedImports: imports, Rerun: true})
	} else {
		l, err = starlarkexec.New(starlarkexec.Options{AuthorizedImports: imports, Rerun: true})
	}
	if err != nil {
		t.Fatal(err)
	}
	p, err := wasm.New(wasm.Options{
		Limits:  executors.Limits{Timeout: 30 * time.Second},
		Imports: executors.NewImportPolicy(imports, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	r := New(l, p)
	t.Cleanup(func() { r.Close() })
	return r
}

func exec(t *testing.T, r *Router, code string) executors.Result {
	t.Helper()
	res, err := r.Execute(context.Background(), code)
	if err != nil {
		t.Fatalf("%q: %v", code, err)
	}
	return res
}

func TestRouting(t *testing.T) {
	r := newRouter(t)
	steps := []struct {
		code, engine, stdout string
		note                 string // a substring one of the notes must have, "" for no notes
	}{
		// Plain code stays in the Starlark engine.
		{"prices = {'a': 1.5, 'b': 2.25}\nnames = ('a', 'b')\nprint(sum(prices.values()))", starlarkexec.Engine, "3.75\n", ""},
		// An import only CPython has goes to Python, with the state so far.
		{"from difflib import SequenceMatcher\ntotal = sum(prices.values())\nexact = round(SequenceMatcher(None, 'kitten', 'sitting').ratio(), 3)\nprint(total, exact, names)", wasm.Engine, "3.75 0.615 ('a', 'b')\n", "cannot run it"},
		// What Python defined comes back; the SequenceMatcher class cannot.
		{"print(exact, total * 2)", starlarkexec.Engine, "0.615 7.5\n", "variable SequenceMatcher stays in the python engine"},
		// Code naming a value that lives only in Python is sent there.
		{"print(SequenceMatcher(None, 'ab', 'ab').ratio() * 2)", wasm.Engine, "2.0\n", "exist only there"},
		// A value Python made in the step just before, which cannot cross,
		// sends the next step straight there (not first to the Starlark
		// engine, where it would be a NameError).
		{"sm = SequenceMatcher(None, 'abc', 'abd')", wasm.Engine, "", ""},
		{"print(round(sm.ratio(), 2))", wasm.Engine, "0.67\n", "uses sm, which exist only there"},
		// Syntax the front end cannot lower goes to Python too.
		{"match total:\n    case 3.75:\n        kind = 'exact'\n    case _:\n        kind = 'other'\nprint(kind)", wasm.Engine, "exact\n", "cannot run it"},
		{"print(kind.upper())", starlarkexec.Engine, "EXACT\n", ""},
		// Whole floats stay floats both ways (JSON writes 4.0 as 4).
		{"half = 2.0\nrates = {'n': 4.0}", starlarkexec.Engine, "", ""},
		{"import difflib\nprint(type(half).__name__, half, rates)\nfull = 5.0", wasm.Engine, "float 2.0 {'n': 4.0}\n", "cannot run it"},
		{"print(type(full).__name__, full, half)", starlarkexec.Engine, "float 5.0 2.0\n", ""},
	}
	for i, s := range steps {
		res := exec(t, r, s.code)
		if res.Err != nil {
			t.Fatalf("step %d: %v", i+1, res.Err)
		}
		if res.Engine != s.engine || res.Stdout != s.stdout {
			t.Errorf("step %d: engine %s stdout %q, want %s %q", i+1, res.Engine, res.Stdout, s.engine, s.stdout)
		}
		notes := strings.Join(res.Notes, "\n")
		if s.note == "" && notes != "" && res.Engine == starlarkexec.Engine && i == 0 {
			t.Errorf("step %d: unexpected notes %q", i+1, notes)
		}
		if s.note != "" && !strings.Contains(notes, s.note) {
			t.Errorf("step %d: notes %q, want one with %q", i+1, notes, s.note)
		}
	}
}

func TestStarlarkFunctionsDoNotReachPython(t *testing.T) {
	r := newRouter(t)
	exec(t, r, "def double(n):\n    return n * 2")
	res := exec(t, r, "from difflib import SequenceMatcher\nprint(double(SequenceMatcher(None, 'a', 'a').ratio()))")
	if res.Engine != wasm.Engine || res.Err == nil || res.Err.Type != "NameError" {
		t.Fatalf("engine %s err %+v", res.Engine, res.Err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "double were defined in the Starlark engine") {
		t.Errorf("notes %q", res.Notes)
	}
}

func TestRefusedImportsAreNotRouted(t *testing.T) {
	r := newRouter(t)
	// os is never importable: the Starlark engine refuses it and so must
	// the router, rather than trying Python.
	res := exec(t, r, "import os\nos.listdir('/')")
	if res.Err == nil || res.Err.Type != "ImportError" || res.Engine != starlarkexec.Engine {
		t.Fatalf("engine %s err %+v", res.Engine, res.Err)
	}
}

// TestAliasedValueBomb: a value that repeats one list many times is a few
// kilobytes in the Starlark engine and 100 million items written out. The
// crossing into Python must refuse it without expanding it (it took 1.7 GB
// of host memory) and say why; the other variables still cross.
func TestAliasedValueBomb(t *testing.T) {
	r := newRouter(t)
	// c is refused by the Starlark engine's export (100 million items),
	// d by the router's budget (a million items: 2 MB of JSON, but 17
	// million units of decoding cost).
	exec(t, r, "a = [0] * 1000\nb = [a] * 10\nc = [[a] * 1000] * 100\nd = [a] * 1000\nsmall = 'kept'")
	before := runnertest.ProcStatus(t, "VmRSS:")
	runnertest.ResetPeak(t)
	res := exec(t, r, "from difflib import SequenceMatcher\nprint(small, len(b), 'c' in globals(), 'd' in globals())")
	if res.Err != nil || res.Engine != wasm.Engine || res.Stdout != "kept 10 False False\n" {
		t.Fatalf("engine %s stdout %q err %v", res.Engine, res.Stdout, res.Err)
	}
	notes := strings.Join(res.Notes, "\n")
	for _, want := range []string{"variable c stays in the starlark engine and is not visible here: it is too large to carry",
		"variable d stays in the starlark engine and is not visible here: it is too big to carry to full Python"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q, want %q", notes, want)
		}
	}
	growth := runnertest.ProcStatus(t, "VmHWM:") - before
	t.Logf("host peak RSS growth during the crossing: %d MiB", growth>>20)
	if growth > 600<<20 {
		t.Errorf("peak RSS grew by %d MiB", growth>>20)
	}
	// Back in the Starlark engine, c is still there.
	if res := exec(t, r, "len(c) * len(c[0]) * len(c[0][0])"); res.Value != int64(100_000_000) {
		t.Errorf("c after the round trip: %+v", res)
	}
}

// resetPeak resets this process's VmHWM (Linux: clear_refs 5).

// A step the Starlark engine stops at while running (vars() without an
// argument is refused only when it is called) runs again in Python from
// the state before it, unless running it again would repeat what the
// world saw or build on a value it changed in place. In both isolations:
// the child of an isolated engine undoes the step itself.
func TestRunTimeRouting(t *testing.T) {
	for _, mode := range []string{isolation.None, isolation.Process} {
		t.Run(mode, func(t *testing.T) {
			r := newRouterIn(t, mode)
			echo, err := tool.New("echo", "returns its text", func(_ context.Context, a struct {
				Text string `json:"text"`
			}) (string, error) {
				return a.Text, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.SetTools(context.Background(), []tool.Tool{echo}); err != nil {
				t.Fatal(err)
			}
			exec(t, r, "n = 1\nxs = [1]")
			// n = n + 1 ran once: from the state before the step, Python
			// prints 2 (3 if the Starlark engine's n = 2 had crossed), and
			// fresh, bound only in the step, is unbound again first.
			res := exec(t, r, "n = n + 1\nfresh = 'x'\nfound = 'n' in vars() and 'fresh' in vars()\nprint(n, found)")
			if res.Err != nil || res.Engine != wasm.Engine || res.Stdout != "2 True\n" {
				t.Fatalf("engine %s stdout %q err %v notes %q", res.Engine, res.Stdout, res.Err, res.Notes)
			}
			notes := strings.Join(res.Notes, "\n")
			for _, want := range []string{"stopped this step at line 3", "can run again from its start", "this step ran in full Python"} {
				if !strings.Contains(notes, want) {
					t.Errorf("notes %q, want %q", notes, want)
				}
			}
			if res := exec(t, r, "print(n)"); res.Engine != starlarkexec.Engine || res.Stdout != "2\n" {
				t.Errorf("after: engine %s stdout %q err %v", res.Engine, res.Stdout, res.Err)
			}
			// Not again: the step printed, called a tool, or grew a list.
			for _, c := range []struct{ code, why string }{
				{"print('once')\nlen(vars())", "already printed output"},
				{"echo(text='once')\nlen(vars())", "already called a tool"},
				{"xs.append(2)\nlen(vars())", "already changed xs in place"},
			} {
				res := exec(t, r, c.code)
				if res.Engine != starlarkexec.Engine || res.Err == nil || res.Err.Type != "TypeError" || res.Err.NeedsPython {
					t.Fatalf("%q: engine %s err %+v", c.code, res.Engine, res.Err)
				}
				if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "not run again in full Python, because it had "+c.why) {
					t.Errorf("%q: notes %q, want %q", c.code, notes, c.why)
				}
			}
			if res := exec(t, r, "print(xs, n)"); res.Stdout != "[1, 2] 2\n" {
				t.Errorf("xs: engine %s stdout %q err %v", res.Engine, res.Stdout, res.Err)
			}
		})
	}
}

// Without a router above it, the engine reports such a step as it ran:
// Python keeps what a step bound before its error, and so does the engine.
func TestRunTimeUnsupportedWithoutRouter(t *testing.T) {
	l, err := starlarkexec.New(starlarkexec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	res, err := l.Execute(context.Background(), "n = 5\nv = vars()")
	if err != nil || res.Err == nil || res.Err.NeedsPython || len(res.Notes) != 0 {
		t.Fatalf("err %v result %+v", err, res)
	}
	if res, _ := l.Execute(context.Background(), "n"); res.Value != int64(5) {
		t.Errorf("n = %+v", res)
	}
}

// A guarded import of a module only CPython has (difflib is authorized
// here) goes to Python, where it works, rather than to the fallback; the
// Starlark engine alone takes the fallback, as CPython without the module
// would.
func TestGuardedImportGoesToPython(t *testing.T) {
	code := "try:\n    import difflib\n    kind = 'difflib'\nexcept ImportError:\n    kind = 'fallback'\nprint(kind)"
	r := newRouter(t)
	if res := exec(t, r, code); res.Err != nil || res.Engine != wasm.Engine || res.Stdout != "difflib\n" {
		t.Errorf("router: engine %s stdout %q err %v", res.Engine, res.Stdout, res.Err)
	}
	l, err := starlarkexec.New(starlarkexec.Options{AuthorizedImports: []string{"difflib"}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	res, err := l.Execute(context.Background(), code)
	if err != nil || res.Err != nil || res.Stdout != "fallback\n" || !slices.Contains(res.Imports, "difflib") {
		t.Errorf("engine alone: %v %+v", err, res)
	}
}

// TestOpenIsolation: Config.Isolation chooses where the Starlark engine
// runs, and an unknown mode is refused with the ones there are.
func TestOpenIsolation(t *testing.T) {
	if _, err := Open(Config{Isolation: "vm"}); err == nil || !strings.Contains(err.Error(), "use process") {
		t.Errorf("Open with isolation vm: %v", err)
	}
	for mode, want := range map[string]string{"": "*starlarkexec.Executor", isolation.None: "*starlarkexec.Executor", isolation.Process: "*isolation.Executor"} {
		e, err := Open(Config{Isolation: mode})
		if err != nil {
			t.Fatalf("isolation %q: %v", mode, err)
		}
		if got := fmt.Sprintf("%T", e); got != want {
			t.Errorf("isolation %q: %s, want %s", mode, got, want)
		}
		e.Close()
	}
}

// TestRerunEffects: a step runs again in full Python only if nothing it
// did could be seen: a tool call in a generator, a callback or parallel(),
// and a change in place of a value from before the step that keeps its
// length (an item, a nested value, an attribute) count as well as a
// print or a tool call at the top.
func TestRerunEffects(t *testing.T) {
	for _, mode := range []string{isolation.None, isolation.Process} {
		t.Run(mode, func(t *testing.T) {
			var calls atomic.Int64
			echo := tool.MustNew("echo", "returns its text", func(_ context.Context, a struct {
				Text string `json:"text"`
			}) (string, error) {
				calls.Add(1)
				return a.Text, nil
			})
			setup := func() *Router {
				r := newRouterIn(t, mode)
				if err := r.SetTools(context.Background(), []tool.Tool{echo}); err != nil {
					t.Fatal(err)
				}
				exec(t, r, "xs = [1, 2]\nd = {'a': [1]}\nclass O:\n    pass\no = O()\no.x = 1")
				return r
			}
			for _, c := range []struct{ code, why string }{
				{"def g():\n    yield echo(text='once')\nys = list(g())\nlen(vars())", "already called a tool"},
				{"ys = sorted(['b', 'a'], key=lambda s: echo(text=s))\nlen(vars())", "already called a tool"},
				{"ys = parallel(echo, ['a'])\nlen(vars())", "already called a tool"},
				{"def g():\n    print('once')\n    yield 1\nys = list(g())\nlen(vars())", "already printed output"},
				{"xs[0] = 5\nlen(vars())", "already changed"},
				{"d['a'][0] = 2\nlen(vars())", "already changed"},
				{"o.x = 2\nlen(vars())", "already changed"},
			} {
				r := setup()
				before := calls.Load()
				res := exec(t, r, c.code)
				if res.Engine != starlarkexec.Engine || res.Err == nil || res.Err.NeedsPython {
					t.Errorf("%q: engine %s err %+v notes %q", c.code, res.Engine, res.Err, res.Notes)
					continue
				}
				if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "not run again in full Python, because it had "+c.why) {
					t.Errorf("%q: notes %q, want %q", c.code, notes, c.why)
				}
				if n := calls.Load() - before; n > 2 {
					t.Errorf("%q: the tool was called %d times", c.code, n)
				}
				r.Close()
			}
			// A step that changed nothing still runs again.
			r := setup()
			if res := exec(t, r, "n = len(xs)\nlen(vars())"); res.Engine != wasm.Engine || res.Err != nil {
				t.Errorf("a step without effects: engine %s err %v notes %q", res.Engine, res.Err, res.Notes)
			}
		})
	}
}

// TestRerunDeadline: the run again gets only what is left of the step's
// time limit (a 5 s step ran 9.2 s).
func TestRerunDeadline(t *testing.T) {
	limits := executors.Limits{Timeout: 3 * time.Second}
	l, err := starlarkexec.New(starlarkexec.Options{Limits: limits, Rerun: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := wasm.New(wasm.Options{Limits: limits, Imports: executors.NewImportPolicy(nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	r := New(l, p)
	defer r.Close()
	exec(t, r, "x = 1") // start the sandbox outside the measured step
	exec(t, r, "len(vars())")
	start := time.Now()
	res := exec(t, r, "import time\nt = time.time()\nwhile time.time() - t < 2:\n    pass\nlen(vars())")
	took := time.Since(start)
	if res.Err == nil || res.Err.Type != "TimeoutError" || took > 3500*time.Millisecond {
		t.Errorf("took %v, err %+v, notes %q; want a TimeoutError within the step's 3 s", took, res.Err, res.Notes)
	}
	if res := exec(t, r, "print(x)"); res.Err != nil || res.Stdout != "1\n" {
		t.Errorf("after: %q %+v", res.Stdout, res.Err)
	}
}

// TestValuesThatCannotCross: a value of a CPython step that the codec
// cannot write (an int past CPython's 4,300 digits for text, a dict with
// tuple keys, a list that holds itself) stays there with a note that names
// it; the other variables cross, the session stays whole, and the next
// steps run.
func TestValuesThatCannotCross(t *testing.T) {
	r := newRouter(t)
	res := exec(t, r, "import difflib\nn = 10 ** 5000\nk = {(1, 2): 3}\nc = []\nc.append(c)\nm = 7")
	if res.Err != nil || res.Engine != wasm.Engine {
		t.Fatalf("engine %s err %v", res.Engine, res.Err)
	}
	res, err := r.Execute(context.Background(), "print(m + 1)")
	if err != nil || res.Err != nil || res.Stdout != "8\n" {
		t.Fatalf("the next step: engine %s stdout %q err %v %v notes %q", res.Engine, res.Stdout, err, res.Err, res.Notes)
	}
	notes := strings.Join(res.Notes, "\n")
	if !strings.Contains(notes, "variable n stays in the python engine") || !strings.Contains(notes, "4300") {
		t.Errorf("notes %q: want one that names n and why", notes)
	}
	// The other way: a huge int of the Starlark engine stays there too.
	exec(t, r, "big = 10 ** 5000\nsmall = 5")
	res, err = r.Execute(context.Background(), "import difflib\nprint(small)")
	if err != nil || res.Err != nil || res.Stdout != "5\n" || !strings.Contains(strings.Join(res.Notes, "\n"), "variable big stays in the starlark engine") {
		t.Fatalf("a huge int into CPython: stdout %q err %v %v notes %q", res.Stdout, err, res.Err, res.Notes)
	}
	for _, code := range []string{"print('after')", "import difflib\nprint(n % 7, m)", "import difflib\nn", "import difflib\nfinal_answer(n)"} {
		res, err := r.Execute(context.Background(), code)
		if err != nil {
			t.Errorf("%q: the session broke: %v", code, err)
			continue
		}
		if strings.Contains(code, "n\n") || strings.HasSuffix(code, "\nn") || strings.Contains(code, "final_answer") {
			// The value itself cannot be shown: a clear error or a note.
			if res.Err == nil && len(res.Notes) == 0 && res.Repr == "" {
				t.Errorf("%q: a silent success: %+v", code, res)
			}
			continue
		}
		if res.Err != nil || !strings.Contains(res.Stdout, "after") && !strings.Contains(res.Stdout, " 7") {
			t.Errorf("%q: engine %s stdout %q err %v", code, res.Engine, res.Stdout, res.Err)
		}
	}
}

// brokenPython is a full-Python executor whose session breaks when its
// variables are read.
type brokenPython struct{ reads int }

func (b *brokenPython) Execute(ctx context.Context, code string) (executors.Result, error) {
	return executors.Result{Engine: "python:broken"}, nil
}
func (b *brokenPython) SetTools(context.Context, []tool.Tool) error        { return nil }
func (b *brokenPython) SetVariables(context.Context, map[string]any) error { return nil }
func (b *brokenPython) Close() error                                       { return nil }
func (b *brokenPython) Variables(context.Context) (map[string]any, map[string]string, error) {
	if b.reads++; b.reads == 1 {
		return nil, nil, fmt.Errorf("%w: runner stream ended", runner.ErrBroken)
	}
	return map[string]any{}, nil, nil
}

// TestBrokenSessionIsAnError: a sandbox that breaks when the router reads
// its variables makes the step an error the model reads (never a success
// with empty output), and the next step runs.
func TestBrokenSessionIsAnError(t *testing.T) {
	l, err := starlarkexec.New(starlarkexec.Options{AuthorizedImports: []string{"difflib"}, Rerun: true})
	if err != nil {
		t.Fatal(err)
	}
	r := New(l, &brokenPython{})
	defer r.Close()
	if res := exec(t, r, "import difflib"); res.Engine != "python:broken" {
		t.Fatalf("engine %s", res.Engine)
	}
	res, err := r.Execute(context.Background(), "x = 1\nprint(x)")
	if err != nil || res.Err == nil || res.Err.Type != "SystemError" || !strings.Contains(res.Err.Message, "did not run") {
		t.Fatalf("the step after the break: err %v, result %+v", err, res.Err)
	}
	if res := exec(t, r, "print(2)"); res.Err != nil || res.Stdout != "2\n" {
		t.Errorf("the next step: %q %v", res.Stdout, res.Err)
	}
}
