// Package runnertest checks that an executor speaking the runner protocol
// behaves as the protocol promises: state, tools, final answers, errors,
// output caps and tagged values. Every full-Python executor runs Conformance
// against a real interpreter in its tests.
package runnertest

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/tool"
)

// Func is a tool made of a Go function, for tests.
type Func struct {
	S tool.Spec
	F func(ctx context.Context, args map[string]any) (any, error)
}

// Spec returns the tool's spec.
func (f Func) Spec() tool.Spec { return f.S }

// Call calls F.
func (f Func) Call(ctx context.Context, args map[string]any) (any, error) { return f.F(ctx, args) }

// Tools returns the tools Conformance expects: add(a, b), fail(msg) that
// always errors, and echo(x) that returns its argument.
func Tools() []tool.Tool {
	return []tool.Tool{
		Func{S: tool.Spec{Name: "add", Description: "Adds two numbers.", Output: tool.Number, Inputs: []tool.Input{
			{Name: "a", Type: tool.Number}, {Name: "b", Type: tool.Number, Nullable: true}}},
			F: func(_ context.Context, args map[string]any) (any, error) {
				b := args["b"]
				if b == nil {
					b = int64(0)
				}
				if x, ok := args["a"].(int64); ok {
					if y, ok := b.(int64); ok {
						return x + y, nil
					}
				}
				return toF(args["a"]) + toF(b), nil
			}},
		Func{S: tool.Spec{Name: "fail", Inputs: []tool.Input{{Name: "msg", Type: tool.String}}},
			F: func(_ context.Context, args map[string]any) (any, error) {
				return nil, errors.New(args["msg"].(string))
			}},
		Func{S: tool.Spec{Name: "echo", Inputs: []tool.Input{{Name: "x", Type: tool.Any}}},
			F: func(_ context.Context, args map[string]any) (any, error) { return args["x"], nil }},
	}
}

func toF(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// Conformance runs the protocol checks on executors made by newExec, which
// must authorize all imports and keep the default output cap of 50,000
// characters unless maxOutput is set; tools are given with SetTools.
func Conformance(t *testing.T, newExec func(t *testing.T) executors.Executor) {
	run, ok := Run, OK

	t.Run("state", func(t *testing.T) {
		e := newExec(t)
		ok(t, e, "x = 40\ndef f(y):\n    return x + y\nimport math")
		res := ok(t, e, "f(2)")
		if res.Value != int64(42) || res.Repr != "42" {
			t.Errorf("value %#v repr %q, want 42", res.Value, res.Repr)
		}
		res = ok(t, e, "print('a', math.floor(2.5)); y = 1")
		if res.Stdout != "a 2\n" || res.Value != nil {
			t.Errorf("stdout %q value %#v", res.Stdout, res.Value)
		}
	})

	t.Run("tools", func(t *testing.T) {
		e := newExec(t)
		if err := e.SetTools(context.Background(), Tools()); err != nil {
			t.Fatal(err)
		}
		res := ok(t, e, "[add(1, 2), add(a=1.5, b=2), add(1, b=3), add(5)]")
		want := []any{int64(3), 3.5, int64(4), int64(5)}
		if !reflect.DeepEqual(res.Value, want) {
			t.Errorf("got %#v, want %#v", res.Value, want)
		}
		res = ok(t, e, "try:\n    fail('no network')\nexcept Exception as e:\n    r = (type(e).__name__, str(e))\nr")
		if want := (pyvalue.Tuple{"ToolError", "tool fail failed: no network"}); !reflect.DeepEqual(res.Value, want) {
			t.Errorf("tool error: got %#v, want %#v", res.Value, want)
		}
		res = ok(t, e, "try:\n    add(1, 2, 3)\nexcept TypeError as e:\n    r = str(e)\nr")
		if s, _ := res.Value.(string); !strings.Contains(s, "positional") {
			t.Errorf("bad call: got %#v", res.Value)
		}
		res = run(t, e, "x = 1\nfail('boom')")
		if res.Err == nil || res.Err.Type != "ToolError" || res.Err.Line != 2 {
			t.Errorf("uncaught tool error: %+v", res.Err)
		}
		res = ok(t, e, "total = 0\nfor i in range(50):\n    total = add(total, echo(add(i, 1)))\ntotal")
		if res.Value != int64(1275) {
			t.Errorf("nested calls in a loop: got %#v", res.Value)
		}
	})

	t.Run("final answer", func(t *testing.T) {
		e := newExec(t)
		for _, code := range []string{
			"final_answer(42)\nprint('not reached')",
			"try:\n    final_answer(42)\nexcept Exception:\n    print('swallowed')",
			"try:\n    final_answer(42)\nexcept:\n    pass\nprint('after')",
			"try:\n    final_answer(42)\nexcept BaseException:\n    final_answer(7)",
			"def g():\n    final_answer(42)\n[g() for _ in range(3)]",
		} {
			res := run(t, e, code)
			if !res.IsFinal || res.Value != int64(42) || res.Err != nil {
				t.Errorf("%q: final %v value %#v err %v", code, res.IsFinal, res.Value, res.Err)
			}
			if strings.Contains(res.Stdout, "not reached") || strings.Contains(res.Stdout, "swallowed") {
				t.Errorf("%q: stdout %q", code, res.Stdout)
			}
		}
		res := ok(t, e, "1 + 1")
		if res.IsFinal {
			t.Error("final answer leaked into the next execution")
		}
	})

	t.Run("errors", func(t *testing.T) {
		e := newExec(t)
		res := run(t, e, "a = 1\ndef f(d):\n    return d['missing']\n\nf({})")
		if res.Err == nil {
			t.Fatal("no error")
		}
		if res.Err.Type != "KeyError" || res.Err.Message != "'missing'" || res.Err.Line != 3 || res.Err.Source != "return d['missing']" {
			t.Errorf("got %+v", res.Err)
		}
		if !strings.Contains(res.Err.Traceback, `line 5, in <module>`) || !strings.Contains(res.Err.Traceback, "line 3, in f") {
			t.Errorf("traceback:\n%s", res.Err.Traceback)
		}
		res = run(t, e, "x = 1\nif x\n    pass")
		if res.Err == nil || res.Err.Type != "SyntaxError" || res.Err.Line != 2 {
			t.Errorf("syntax error: %+v", res.Err)
		}
		res = run(t, e, "print('partial')\nraise ValueError('bad value')")
		if res.Err == nil || res.Err.Type != "ValueError" || res.Err.Message != "bad value" || res.Stdout != "partial\n" {
			t.Errorf("got %+v, stdout %q", res.Err, res.Stdout)
		}
		res = run(t, e, "import sys\nsys.exit(3)")
		if res.Err == nil || res.Err.Type != "SystemExit" {
			t.Errorf("sys.exit: %+v", res.Err)
		}
		ok(t, e, "a") // the runner survived
	})

	t.Run("output cap", func(t *testing.T) {
		e := newExec(t)
		res := ok(t, e, "for i in range(20000):\n    print('0123456789')\nprint('the end')")
		if !res.Truncated || !strings.Contains(res.Stdout, "[output truncated: 170008 characters in the middle were dropped; the first 25000 and the last 25000 are kept]") || !strings.HasSuffix(res.Stdout, "0123456789\nthe end\n") {
			t.Errorf("truncated %v, tail %q", res.Truncated, res.Stdout[max(0, len(res.Stdout)-120):])
		}
		if n := len([]rune(res.Stdout)); n > 50_200 {
			t.Errorf("kept %d characters", n)
		}
		res = ok(t, e, "import sys\nsys.stdout.write('w'); sys.__stdout__.write('x'); sys.stderr.write('y'); print('z')")
		if res.Stdout != "wxyz\n" {
			t.Errorf("stdout %q", res.Stdout)
		}
	})

	t.Run("values", func(t *testing.T) {
		e := newExec(t)
		if err := e.SetTools(context.Background(), Tools()); err != nil {
			t.Fatal(err)
		}
		dt := time.Date(2024, 5, 1, 13, 45, 0, 250000000, time.FixedZone("", 2*3600))
		naive := time.Date(2024, 5, 1, 13, 45, 0, 0, pyvalue.Naive)
		huge, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
		vars := map[string]any{
			"v_tuple":     pyvalue.Tuple{int64(1), "a", pyvalue.Tuple{}},
			"v_set":       pyvalue.Set{int64(3)},
			"v_frozenset": pyvalue.FrozenSet{"x"},
			"v_bytes":     []byte{0, 1, 255},
			"v_datetime":  dt,
			"v_naive":     naive,
			"v_date":      pyvalue.Date("2024-05-01"),
			"v_time":      pyvalue.Time("13:45:00.500000"),
			"v_timedelta": 36*time.Hour + 1500*time.Microsecond,
			"v_int":       huge,
			"v_dict":      pyvalue.Dict{{Key: int64(1), Value: "one"}, {Key: pyvalue.Tuple{int64(1), int64(2)}, Value: nil}},
			"v_tagkey":    map[string]any{"$tuple": int64(1)},
			"v_reprkeys":  map[string]any{"$repr": "x", "type": "y"},
			"v_nested":    map[string]any{"l": []any{1.5, true, nil, "s"}},
		}
		if err := e.SetVariables(context.Background(), vars); err != nil {
			t.Fatal(err)
		}
		res := ok(t, e, `import datetime
checks = [
    type(v_tuple) is tuple and v_tuple[2] == (),
    v_set == {3}, v_frozenset == frozenset({'x'}),
    v_bytes == b'\x00\x01\xff',
    v_datetime == datetime.datetime(2024, 5, 1, 13, 45, 0, 250000, tzinfo=datetime.timezone(datetime.timedelta(hours=2))),
    v_naive == datetime.datetime(2024, 5, 1, 13, 45) and v_naive.tzinfo is None,
    v_date == datetime.date(2024, 5, 1), v_time == datetime.time(13, 45, 0, 500000),
    v_timedelta == datetime.timedelta(hours=36, microseconds=1500),
    v_int == 123456789012345678901234567890,
    v_dict == {1: 'one', (1, 2): None},
    v_tagkey == {'$tuple': 1},
    v_reprkeys == {'$repr': 'x', 'type': 'y'},
    v_nested == {'l': [1.5, True, None, 's']},
]
checks`)
		for i, c := range res.Value.([]any) {
			if c != true {
				t.Errorf("check %d in Python failed", i)
			}
		}
		for name, want := range vars {
			res := ok(t, e, name)
			if !reflect.DeepEqual(res.Value, want) {
				if w, ok := want.(time.Time); ok {
					if g, ok := res.Value.(time.Time); ok && g.Equal(w) && g.Location().String() == w.Location().String() || (ok && g.Equal(w) && w.Location() != pyvalue.Naive) {
						continue
					}
				}
				t.Errorf("%s came back as %#v, want %#v", name, res.Value, want)
			}
		}
		res = ok(t, e, "class P:\n    def __repr__(self):\n        return 'P()'\n(float('nan'), float('inf'), P())")
		tup := res.Value.(pyvalue.Tuple)
		if f, _ := tup[0].(float64); f == f || tup[2] != (pyvalue.Opaque{Type: "P", Repr: "P()"}) {
			t.Errorf("got %#v", res.Value)
		}
		res = ok(t, e, "echo((1, {2}))")
		if !reflect.DeepEqual(res.Value, []any{int64(1), []any{int64(2)}}) {
			t.Errorf("tools see JSON-shaped values, got back %#v", res.Value)
		}
	})

	t.Run("imports", func(t *testing.T) {
		e := newExec(t)
		res := ok(t, e, "import json, collections.abc\nfrom datetime import date\njson.dumps([1])")
		if res.Value != "[1]" || fmt.Sprint(res.Imports) != "[json collections.abc datetime]" {
			t.Errorf("value %#v imports %v", res.Value, res.Imports)
		}
	})

	t.Run("tool calls", func(t *testing.T) { ToolCalls(t, newExec) })
}
