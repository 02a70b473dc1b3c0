package starlarkexec

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/tool"
)

func newTestExecutor(t testing.TB, opts Options) *Executor {
	t.Helper()
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func run(t testing.TB, e *Executor, code string) executors.Result {
	t.Helper()
	res, err := e.Execute(context.Background(), code)
	if err != nil {
		t.Fatalf("Execute(%q): %v", code, err)
	}
	return res
}

func TestStatePersistsAcrossExecutions(t *testing.T) {
	e := newTestExecutor(t, Options{})
	steps := []struct{ code, stdout, repr string }{
		{"x = 40\ndef inc(n):\n    return n + 1\n", "", ""},
		{"x = inc(x)\nprint(x)\nx", "41\n", "41"},
		{"items = [x, x + 1]\nitems.append(inc(items[-1]))\nitems", "", "[41, 42, 43]"},
		{"len(items)", "", "3"},
	}
	for _, s := range steps {
		res := run(t, e, s.code)
		if res.Err != nil {
			t.Fatalf("%q: %v", s.code, res.Err)
		}
		if res.Stdout != s.stdout || res.Repr != s.repr {
			t.Errorf("%q: stdout %q repr %q, want %q %q", s.code, res.Stdout, res.Repr, s.stdout, s.repr)
		}
		if res.Engine != Engine || res.Steps == 0 && s.code != "" {
			t.Errorf("%q: engine %q steps %d", s.code, res.Engine, res.Steps)
		}
	}
}

func TestFailedStepKeepsStateAndOutput(t *testing.T) {
	e := newTestExecutor(t, Options{})
	run(t, e, "total = 10")
	res := run(t, e, "print('before')\ntotal = total + 5\nd = {}\nd['missing']\ntotal = 0")
	if res.Err == nil || res.Err.Type != "KeyError" || res.Err.Line != 4 {
		t.Fatalf("want KeyError at line 4, got %+v", res.Err)
	}
	if res.Err.Source != "d['missing']" {
		t.Errorf("source %q", res.Err.Source)
	}
	if res.Stdout != "before\n" {
		t.Errorf("partial output lost: %q", res.Stdout)
	}
	// Assignments made before the failure persist, as in Python.
	if got := run(t, e, "total").Repr; got != "15" {
		t.Errorf("total = %s, want 15", got)
	}
}

func TestFinalAnswer(t *testing.T) {
	e := newTestExecutor(t, Options{})
	res := run(t, e, "result = {'answer': 42, 'items': [1, 2.5, 'x', None, True]}\nfinal_answer(result)\nprint('not reached')")
	if !res.IsFinal || res.Err != nil {
		t.Fatalf("want final, got %+v", res)
	}
	if res.Stdout != "" {
		t.Errorf("code after final_answer ran: %q", res.Stdout)
	}
	m, ok := res.Value.(map[string]any)
	if !ok || m["answer"] != int64(42) {
		t.Fatalf("value %#v", res.Value)
	}
	if res.Repr != "{'answer': 42, 'items': [1, 2.5, 'x', None, True]}" {
		t.Errorf("repr %s", res.Repr)
	}
	// Inside a function, several calls deep.
	res = run(t, e, "def g():\n    final_answer('deep')\ndef f():\n    g()\nf()")
	if !res.IsFinal || res.Value != "deep" {
		t.Fatalf("deep final: %+v", res)
	}
	res = run(t, e, "final_answer()")
	if res.Err == nil || res.Err.Type != "TypeError" {
		t.Fatalf("final_answer(): %+v", res.Err)
	}
}

func TestErrorTypesAndLines(t *testing.T) {
	cases := []struct {
		code, typ string
		line      int
	}{
		{"x = 1\ny = undefined_name + 1", "NameError", 2},
		{"d = {'a': 1}\nd['b']", "KeyError", 2},
		{"'a' + 1", "TypeError", 1},
		{"\n\n1 // 0", "ZeroDivisionError", 3},
		{"[1, 2][5]", "IndexError", 1},
		{"int('abc')", "ValueError", 1},
		{"x = 5\nx.nope", "AttributeError", 2},
		{"def f(:\n  pass", "SyntaxError", 1},
		{"import os", "ImportError", 1},
		{"def f(n):\n    return n / 0\n\nf(1)", "ZeroDivisionError", 2},
	}
	for _, c := range cases {
		e := newTestExecutor(t, Options{})
		res := run(t, e, c.code)
		if res.Err == nil {
			t.Errorf("%q: no error", c.code)
			continue
		}
		if res.Err.Type != c.typ || res.Err.Line != c.line {
			t.Errorf("%q: got %s at line %d (%s), want %s at line %d", c.code, res.Err.Type, res.Err.Line, res.Err.Message, c.typ, c.line)
		}
		if c.typ != "SyntaxError" && c.typ != "ImportError" && !strings.Contains(res.Err.Describe(), "Code execution failed at line") {
			t.Errorf("%q: describe %q", c.code, res.Err.Describe())
		}
	}
}

func TestImportPolicy(t *testing.T) {
	e := newTestExecutor(t, Options{AuthorizedImports: []string{"numpy", "os"}})
	res := run(t, e, "import math\nmath.sqrt(16)")
	if res.Err != nil || res.Repr != "4.0" {
		t.Fatalf("import math: %+v %s", res.Err, res.Repr)
	}
	if len(res.Imports) != 1 || res.Imports[0] != "math" {
		t.Errorf("imports %v", res.Imports)
	}
	// Authorized but only CPython has it: NeedsPython.
	res = run(t, e, "x = 1\nimport numpy as np")
	if res.Err == nil || !res.Err.NeedsPython || res.Err.Type != "ModuleNotFoundError" || res.Err.Line != 2 {
		t.Fatalf("numpy: %+v", res.Err)
	}
	// Never importable, even when authorized.
	res = run(t, e, "import os")
	if res.Err == nil || res.Err.Type != "ImportError" || res.Err.NeedsPython {
		t.Fatalf("os: %+v", res.Err)
	}
	// A refusal names the module and lists what is authorized.
	res = run(t, newTestExecutor(t, Options{}), "import requests")
	if res.Err == nil || !strings.Contains(res.Err.Message, "requests") || !strings.Contains(res.Err.Message, "collections") {
		t.Fatalf("requests: %+v", res.Err)
	}
}

type echoTool struct{ calls int }

func (t *echoTool) Spec() tool.Spec {
	return tool.Spec{
		Name: "lookup", Description: "Looks a key up.",
		Inputs: []tool.Input{{Name: "key", Type: tool.String}, {Name: "limit", Type: tool.Integer, Nullable: true}},
		Output: tool.Object,
	}
}

func (t *echoTool) Call(ctx context.Context, args map[string]any) (any, error) {
	t.calls++
	if args["key"] == "boom" {
		return nil, errors.New("backend unavailable")
	}
	return map[string]any{"key": args["key"], "limit": args["limit"]}, nil
}

func TestTools(t *testing.T) {
	e := newTestExecutor(t, Options{})
	et := &echoTool{}
	if err := e.SetTools(context.Background(), []tool.Tool{et}); err != nil {
		t.Fatal(err)
	}
	res := run(t, e, "a = lookup('x')\nb = lookup(key='y', limit=3)\n[a['key'], b['limit']]")
	if res.Err != nil || res.Repr != "['x', 3]" {
		t.Fatalf("%+v %s", res.Err, res.Repr)
	}
	res = run(t, e, "lookup('boom')")
	if res.Err == nil || res.Err.Type != "ToolError" || !strings.Contains(res.Err.Message, "backend unavailable") {
		t.Fatalf("tool error: %+v", res.Err)
	}
	res = run(t, e, "lookup(nope=1)")
	if res.Err == nil || res.Err.Type != "TypeError" || !strings.Contains(res.Err.Message, "unexpected keyword argument 'nope'") {
		t.Fatalf("bad kwarg: %+v", res.Err)
	}
	res = run(t, e, "lookup(123)")
	if res.Err == nil || res.Err.Type != "TypeError" || !strings.Contains(res.Err.Message, "must be of type string") {
		t.Fatalf("bad type: %+v", res.Err)
	}
	if err := e.SetTools(context.Background(), []tool.Tool{namedTool("final_answer")}); err == nil {
		t.Error("a tool may not replace final_answer")
	}
	if err := e.SetTools(context.Background(), []tool.Tool{namedTool("not valid")}); err == nil {
		t.Error("a tool name must be an identifier")
	}
}

type namedTool string

func (n namedTool) Spec() tool.Spec                                   { return tool.Spec{Name: string(n)} }
func (n namedTool) Call(context.Context, map[string]any) (any, error) { return nil, nil }

func TestVariables(t *testing.T) {
	e := newTestExecutor(t, Options{})
	if err := e.SetVariables(context.Background(), map[string]any{"data": []any{int64(1), 2.5, "x"}, "cfg": map[string]any{"k": true}}); err != nil {
		t.Fatal(err)
	}
	res := run(t, e, "[data[0] + 1, cfg['k']]")
	if res.Err != nil || res.Repr != "[2, True]" {
		t.Fatalf("%+v %s", res.Err, res.Repr)
	}
	run(t, e, "def f():\n    return 1\nmade = {'n': 3}")
	vars, skipped, _ := e.Variables(context.Background())
	if _, ok := vars["made"]; !ok || len(skipped) != 1 || skipped["f"] == "" {
		t.Errorf("vars %v skipped %v", vars, skipped)
	}
	if _, ok := vars["print"]; ok {
		t.Error("builtins must not be reported as variables")
	}
	if err := e.SetVariables(context.Background(), map[string]any{"__class__": 1}); err == nil {
		t.Error("dunder variable accepted")
	}
}

func TestOutputCap(t *testing.T) {
	var live strings.Builder
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxOutput: 100}, Stdout: &live})
	res := run(t, e, "for i in range(1000):\n    print('line', i)\nprint('the end')")
	if !res.Truncated {
		t.Fatalf("not truncated: %q", res.Stdout)
	}
	// The first 50 and the last 50 characters are kept, around a marker.
	head, rest, ok := strings.Cut(res.Stdout, "\n[output truncated: ")
	if !ok {
		t.Fatalf("no truncation marker: %q", res.Stdout)
	}
	marker, tail, _ := strings.Cut(rest, "]\n")
	if head != "line 0\nline 1\nline 2\nline 3\nline 4\nline 5\nline 6\nl" {
		t.Errorf("head %q", head)
	}
	if !strings.HasSuffix(tail, "line 997\nline 998\nline 999\nthe end\n") || len([]rune(tail)) != 50 {
		t.Errorf("tail %q", tail)
	}
	if want := "8798 characters in the middle were dropped; the first 50 and the last 50 are kept"; marker != want {
		t.Errorf("marker %q, want %q", marker, want)
	}
	if live.String() != head {
		t.Errorf("live copy %q differs from the kept head", live.String())
	}
	// Below the cap, everything is kept.
	if res := run(t, e, "print('x' * 99, end='')"); res.Truncated || res.Stdout != strings.Repeat("x", 99) {
		t.Errorf("99 characters: truncated %v, %q", res.Truncated, res.Stdout)
	}
	if res := run(t, e, "print('é' * 60 + 'ü' * 60)"); !res.Truncated || !strings.HasPrefix(res.Stdout, strings.Repeat("é", 50)+"\n[") || !strings.HasSuffix(res.Stdout, strings.Repeat("ü", 49)+"\n") {
		t.Errorf("one long write: %q", res.Stdout)
	}
}

func TestCancelledContextStopsPromptly(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxOperations: 1 << 62}})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	// The loop never ends: returning with the context's error is stopping.
	res, err := e.Execute(ctx, "while True:\n    pass")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if res.Err == nil || res.Err.Type != "TimeoutError" {
		t.Fatalf("res.Err %+v", res.Err)
	}
	// The executor is still usable.
	if r := run(t, e, "1 + 1"); r.Repr != "2" {
		t.Fatalf("after cancel: %+v", r)
	}
}

// TestCancelledDuringToolCall cancels while the code waits in a tool; run
// with -race, it checks that the watcher and Execute do not race on the
// monitor's state.
func TestCancelledDuringToolCall(t *testing.T) {
	e := newTestExecutor(t, Options{})
	entered := make(chan struct{})
	wait := runnertest.Func{S: tool.Spec{Name: "wait"}, F: func(ctx context.Context, _ map[string]any) (any, error) {
		close(entered)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	if err := e.SetTools(context.Background(), []tool.Tool{wait}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-entered; cancel() }()
	res, err := e.Execute(ctx, "wait()")
	if !errors.Is(err, context.Canceled) || res.Err == nil {
		t.Fatalf("err %v, res.Err %+v", err, res.Err)
	}
	if r := run(t, e, "1 + 1"); r.Repr != "2" {
		t.Fatalf("after cancel: %+v", r)
	}
}

func TestClosedExecutor(t *testing.T) {
	e := newTestExecutor(t, Options{})
	e.Close()
	if _, err := e.Execute(context.Background(), "1"); err == nil {
		t.Fatal("closed executor ran code")
	}
}

func TestInvalidLimits(t *testing.T) {
	if _, err := New(Options{Limits: executors.Limits{MaxMemory: 10}}); err == nil {
		t.Fatal("10-byte memory limit accepted")
	}
}

func ExampleExecutor() {
	e, _ := New(Options{})
	defer e.Close()
	ctx := context.Background()
	e.Execute(ctx, "prices = {'apple': 1.25, 'pear': 0.8}")
	res, _ := e.Execute(ctx, "total = sum(prices.values())\nprint('total', total)\nfinal_answer(round(total, 2))")
	fmt.Print(res.Stdout)
	fmt.Println(res.IsFinal, res.Value)
	// Output:
	// total 2.05
	// true 2.05
}

func TestFunctionsSeeGlobalsReboundInLaterSteps(t *testing.T) {
	e := newTestExecutor(t, Options{})
	steps := []struct{ code, repr string }{
		{"data = [1, 2, 3]\ndef total():\n    return sum(data)\ndef report():\n    return 'total=%d' % total()", ""},
		{"report()", "'total=6'"},
		// Rebinding a global changes what earlier functions see, as in Python.
		{"data = [10, 20]\nreport()", "'total=30'"},
		{"report()", "'total=30'"},
		// A function defined before the name it uses.
		{"def scaled():\n    return factor * 2", ""},
		{"factor = 21\nscaled()", "42"},
		// Redefining a helper is seen by the functions that call it.
		{"def total():\n    return -1\nreport()", "'total=-1'"},
		// A decorated function is relinked with its decorator.
		{"def twice(f):\n    def g():\n        return f() * 2\n    return g\n@twice\ndef base():\n    return offset\noffset = 1\nbase()", "2"},
		{"offset = 5\nbase()", "10"},
	}
	for _, s := range steps {
		res := run(t, e, s.code)
		if res.Err != nil {
			t.Fatalf("%q: %v", s.code, res.Err)
		}
		if res.Repr != s.repr {
			t.Errorf("%q: got %s, want %s", s.code, res.Repr, s.repr)
		}
	}
}

func TestModulesAreSharedWithinAnExecutor(t *testing.T) {
	e := newTestExecutor(t, Options{})
	run(t, e, "import random\nrandom.seed(42)")
	a := run(t, e, "from random import randint\nrandint(1, 1000000)")
	b := run(t, newTestExecutor(t, Options{}), "import random\nrandom.seed(42)\nrandom.randint(1, 1000000)")
	if a.Err != nil || b.Err != nil || a.Repr != b.Repr {
		t.Fatalf("seeded generator not shared: %s vs %s (%v %v)", a.Repr, b.Repr, a.Err, b.Err)
	}
}

func TestErrorLineAfterRedefinitions(t *testing.T) {
	e := newTestExecutor(t, Options{})
	run(t, e, "def double(n):\n    return n * 2\ntotal = double(5)")
	// This step rebinds total, so double is re-created before it runs.
	res := run(t, e, "print('x')\ntotal = total + missing_name")
	if res.Err == nil || res.Err.Line != 2 || res.Err.Source != "total = total + missing_name" {
		t.Fatalf("%+v", res.Err)
	}
	// An error inside a re-created function names the user's call line.
	res = run(t, e, "total = 1\ndouble(None)")
	if res.Err == nil || res.Err.Type != "TypeError" || res.Err.Line != 2 {
		t.Fatalf("%+v", res.Err)
	}
}

func TestVariablesKeepPythonTypes(t *testing.T) {
	e := newTestExecutor(t, Options{})
	err := e.SetVariables(context.Background(), map[string]any{
		"t": pyvalue.Tuple{int64(1), "a"},
		"s": pyvalue.Set{int64(3)},
		"d": pyvalue.Dict{{Key: int64(1), Value: "one"}},
		"b": []byte("hi"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res := run(t, e, "[t, s, d, b]"); res.Err != nil || res.Repr != "[(1, 'a'), {3}, {1: 'one'}, b'hi']" {
		t.Fatalf("%+v %s", res.Err, res.Repr)
	}
	vars, _, _ := e.Variables(context.Background())
	if _, ok := vars["t"].(pyvalue.Tuple); !ok {
		t.Errorf("tuple exported as %T", vars["t"])
	}
	if _, ok := vars["d"].(pyvalue.Dict); !ok {
		t.Errorf("int-keyed dict exported as %T", vars["d"])
	}
	if err := e.SetVariables(context.Background(), map[string]any{"o": pyvalue.Opaque{Type: "Decimal", Repr: "Decimal('1')"}}); err == nil {
		t.Error("an opaque Python object was accepted")
	}
}

// TestUnrelatedRebindingKeepsFunctions: rebinding a global that a function
// does not refer to leaves the function object as it is (Python has one
// function object; the engine re-creates a function only when it must).
func TestUnrelatedRebindingKeepsFunctions(t *testing.T) {
	e := newTestExecutor(t, Options{})
	run(t, e, "rows = [1, 2]\nlimit = 3\ndef small(xs):\n    return [x for x in xs if x < limit]\nkept = small")
	if res := run(t, e, "rows = [5, 1]\nprint(kept is small, small(rows))"); res.Err != nil || res.Stdout != "True [1]\n" {
		t.Errorf("unrelated rebinding: %q %v", res.Stdout, res.Err)
	}
	if res := run(t, e, "limit = 10\nprint(small(rows))"); res.Err != nil || res.Stdout != "[5, 1]\n" {
		t.Errorf("rebinding a name the function reads: %q %v", res.Stdout, res.Err)
	}
}

// TestComparisonConstantsKeepFunctions checks that a later step using the
// same comparison with a literal (whose constant the prologue binds again)
// does not re-define earlier functions that use it: re-definition would
// evaluate their defaults again.
func TestComparisonConstantsKeepFunctions(t *testing.T) {
	e := newTestExecutor(t, Options{})
	run(t, e, "made = []\ndef positive(x, _=made.append(1)):\n    return x > 0\nkept = positive")
	res := run(t, e, "z = 3\nok = z > 0\nprint(len(made), kept is positive, positive(-1), ok)")
	if res.Err != nil || res.Stdout != "1 True False True\n" {
		t.Errorf("a step with the same comparison re-defined the function: %q %v", res.Stdout, res.Err)
	}
}
