package starlarkexec

import (
	"context"
	"encoding/json"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/tool"
)

// allocatedBy returns what the process allocated while f ran (the tests
// of this file do not run in parallel, so it is f's, give or take the
// runtime's own).
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReturnedValuesAreCapped: final answers and last-expression values
// used to be rendered and converted whole, however large: [[[0]*1000]*1000]*60
// (60 million zeros through one 1000-element list) took 1.9 GB and made a
// 120 MB output line. The repr stops at MaxOutput characters, the value at
// MaxValue bytes of JSON, each with a marker, and neither is built whole
// first.
func TestReturnedValuesAreCapped(t *testing.T) {
	limits := executors.Limits{}.WithDefaults()
	cases := []struct {
		name, code string
		final      bool
	}{
		{"aliased nest", "final_answer([[[0] * 1000] * 1000] * 60)", true},
		{"long list", "final_answer([0] * 2_000_000)", true},
		{"long string", "final_answer('x' * 5_000_000)", true},
		{"long string as last expression", "s = 'ab' * 3_000_000\ns", false},
		{"dict of aliased lists", "row = list(range(1000))\n{str(i): [row] * 100 for i in range(100)}", false},
		{"deque renders its own parts", "from collections import deque\nfinal_answer(deque(['x' * 100] * 200_000))", true},
		{"dataclass around a long list", "from dataclasses import dataclass\n@dataclass\nclass D:\n    xs: list\nfinal_answer(D([1] * 1_000_000))", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTestExecutor(t, Options{AuthorizedImports: []string{"dataclasses"}})
			var res executors.Result
			alloc := allocatedBy(func() { res = run(t, e, c.code) })
			if res.Err != nil {
				t.Fatalf("%+v", res.Err)
			}
			if res.IsFinal != c.final {
				t.Errorf("IsFinal %v, want %v", res.IsFinal, c.final)
			}
			if n := utf8.RuneCountInString(res.Repr); n > limits.MaxOutput+200 || !strings.Contains(res.Repr, "truncated") {
				t.Errorf("repr of %d characters, want at most %d and a truncation marker; ends %q", n, limits.MaxOutput+200, tail(res.Repr))
			}
			line, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			if len(line) > int(limits.MaxValue)+4*limits.MaxOutput+4096 {
				t.Errorf("the result is %d bytes as JSON, want at most the value limit, the repr and some", len(line))
			}
			// A value too large to return whole is returned as the start of
			// its repr; an object that has no JSON form is one anyway, its
			// repr cut as runner.py cuts it.
			switch v := res.Value.(type) {
			case string:
			case pyvalue.Opaque:
				if len(v.Repr) > maxOpaqueRepr+3 || !strings.HasSuffix(v.Repr, "...") {
					t.Errorf("an opaque value with a repr of %d bytes, want it cut at %d", len(v.Repr), maxOpaqueRepr)
				}
			default:
				t.Errorf("a value too large to return whole is returned as %T", res.Value)
			}
			// The code builds at most a few MB; converting it whole took
			// hundreds of MB to GB.
			if alloc > 64<<20 {
				t.Errorf("the execution allocated %d MiB", alloc>>20)
			}
		})
	}
}

func tail(s string) string {
	if len(s) > 200 {
		return s[len(s)-200:]
	}
	return s
}

// TestSmallValuesAreWhole: what fits is returned as it was.
func TestSmallValuesAreWhole(t *testing.T) {
	e := newTestExecutor(t, Options{})
	res := run(t, e, "final_answer({'a': [1, 2.5, None], 'b': (True, 'x' * 10_000)})")
	if res.Err != nil || len(res.Notes) > 0 || strings.Contains(res.Repr, "truncated") {
		t.Fatalf("%+v %q", res.Err, res.Notes)
	}
	m, ok := res.Value.(map[string]any)
	if !ok || len(m["b"].(pyvalue.Tuple)[1].(string)) != 10_000 {
		t.Errorf("value %T", res.Value)
	}
}

// TestResultValuesAreFaithful: a result keeps the Python type of its
// value as pyvalue's types say it (a tuple is not a list, 32.0 is not 32,
// int keys stay ints in their order), and its
// JSON form (pyvalue.Marshal) is the documented one, NaN included.
func TestResultValuesAreFaithful(t *testing.T) {
	code := `import datetime
class P:
    def __repr__(self):
        return 'P()'
final_answer([32.0, float('nan'), (1, 'a'), {3}, frozenset(), b'\x00a', {2: 'b', 1: 'a'}, {'k': (1,)},
              2**53 + 1, 2**100, datetime.date(2024, 5, 1), datetime.datetime(2024, 5, 1, 13, 45, 0, 250),
              datetime.timedelta(seconds=90), P(), range(2)])`
	want := `[32.0,{"$float":"nan"},{"$tuple":[1,"a"]},{"$set":[3]},{"$frozenset":[]},{"$bytes":"AGE="},` +
		`{"$dict":[[2,"b"],[1,"a"]]},{"k":{"$tuple":[1]}},{"$int":"9007199254740993"},{"$int":"1267650600228229401496703205376"},` +
		`{"$date":"2024-05-01"},{"$datetime":"2024-05-01T13:45:00.000250"},{"$timedelta":[0,90,0]},` +
		`{"$repr":"P()","type":"P"},{"$repr":"range(0, 2)","type":"range"}]`
	wantRepr := `[32.0, nan, (1, 'a'), {3}, frozenset(), b'\x00a', {2: 'b', 1: 'a'}, {'k': (1,)}, 9007199254740993, ` +
		`1267650600228229401496703205376, datetime.date(2024, 5, 1), datetime.datetime(2024, 5, 1, 13, 45, 0, 250), ` +
		`datetime.timedelta(seconds=90), P(), range(0, 2)]`
	e := newTestExecutor(t, Options{})
	res := run(t, e, code)
	if res.Err != nil || !res.IsFinal {
		t.Fatalf("%+v", res.Err)
	}
	if res.Repr != wantRepr {
		t.Errorf("repr %s\nwant %s", res.Repr, wantRepr)
	}
	l, ok := res.Value.([]any)
	if !ok {
		t.Fatalf("value %T", res.Value)
	}
	if f, ok := l[0].(float64); !ok || f != 32 {
		t.Errorf("32.0 came back as %#v", l[0])
	}
	if _, ok := l[2].(pyvalue.Tuple); !ok {
		t.Errorf("a tuple came back as %T", l[2])
	}
	if d, ok := l[6].(pyvalue.Dict); !ok || d[0].Key != int64(2) {
		t.Errorf("a dict with int keys came back as %#v", l[6])
	}
	data, err := pyvalue.Marshal(res.Value)
	if err != nil || string(data) != want {
		t.Errorf("JSON %s, %v\nwant %s", data, err, want)
	}
}

// TestToolArgumentsArePlain: tools still receive plain JSON shapes.
func TestToolArgumentsArePlain(t *testing.T) {
	e := newTestExecutor(t, Options{})
	var got any
	echo := runnertest.Func{S: tool.Spec{Name: "echo", Inputs: []tool.Input{{Name: "x", Type: tool.Any}}},
		F: func(_ context.Context, args map[string]any) (any, error) {
			got = args["x"]
			return nil, nil
		}}
	if err := e.SetTools(context.Background(), []tool.Tool{echo}); err != nil {
		t.Fatal(err)
	}
	res := run(t, e, "echo(x=[(1, 2), {1: 'a'}, b'hi'])")
	if res.Err != nil {
		t.Fatalf("%+v", res.Err)
	}
	want := []any{[]any{int64(1), int64(2)}, map[string]any{"1": "a"}, "hi"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the tool got %#v, want %#v", got, want)
	}
}

// TestValueLimitsApply: MaxValue and MaxOutput set by the caller apply,
// with notes that say what happened.
func TestValueLimitsApply(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxValue: 100, MaxOutput: 40}})
	res := run(t, e, "final_answer(list(range(1000)))")
	if res.Err != nil || !res.IsFinal {
		t.Fatalf("%+v", res.Err)
	}
	if !strings.HasPrefix(res.Repr, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1...") || !strings.Contains(res.Repr, "final answer truncated") {
		t.Errorf("repr %q", res.Repr)
	}
	if res.Value != res.Repr {
		t.Errorf("value %q, want the repr", res.Value)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "larger than the limit of 100 bytes") {
		t.Errorf("notes %q", res.Notes)
	}
	res = run(t, e, "final_answer('é' * 1000)")
	s, _ := res.Value.(string)
	if res.Err != nil || !utf8.ValidString(s) || !strings.HasPrefix(s, strings.Repeat("é", 50)+"\n[final answer truncated: 100 of its 2000 bytes are kept]") {
		t.Errorf("a long string answer: %q %+v", s, res.Err)
	}
}

// TestErrorMessagesAreCapped: an exception's message carries whatever the
// code put in it, into the result and the CLI's JSON lines.
func TestErrorMessagesAreCapped(t *testing.T) {
	e := newTestExecutor(t, Options{})
	max := executors.Limits{}.WithDefaults().MaxOutput
	for _, code := range []string{
		"raise ValueError('x' * 10_000_000)",
		"d = {}\nd['k' * 10_000_000]",
	} {
		res := run(t, e, code)
		if res.Err == nil {
			t.Fatalf("%q: no error", code)
		}
		if n := utf8.RuneCountInString(res.Err.Message); n > max+100 {
			t.Errorf("%q: message of %d characters", code[:20], n)
		}
		if n := utf8.RuneCountInString(res.Err.Traceback); n > 2*max+100 {
			t.Errorf("%q: traceback of %d characters", code[:20], n)
		}
	}
}

// TestToolArgumentsAreBounded: a tool's arguments are converted within the
// execution's memory budget (an aliased nest is 60 million values once
// converted).
func TestToolArgumentsAreBounded(t *testing.T) {
	e := newTestExecutor(t, Options{})
	_, tl := newStuckTool(t)
	if err := e.SetTools(context.Background(), toolList(tl)); err != nil {
		t.Fatal(err)
	}
	var res executors.Result
	alloc := allocatedBy(func() { res = run(t, e, "stuck([[[0] * 1000] * 1000] * 60)") })
	if res.Err == nil || res.Err.Type != "MemoryError" {
		t.Fatalf("want MemoryError, got %+v", res.Err)
	}
	if alloc > 1<<30 {
		t.Errorf("the execution allocated %d MiB", alloc>>20)
	}
}

func toolList(ts ...tool.Tool) []tool.Tool { return ts }
