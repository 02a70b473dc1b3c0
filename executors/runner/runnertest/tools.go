package runnertest

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/tool"
)

// Barrier is a tool, wait(x), whose calls return x once N calls have
// started: calls made one after another never get there, and each then
// fails after Patience (or when its context ends) with an error saying
// so. It shows that calls run concurrently without measuring time.
type Barrier struct {
	N        int
	Patience time.Duration

	mu      sync.Mutex
	started int
	all     chan struct{}
	peak    int
	running int
}

// NewBarrier returns a barrier for n calls.
func NewBarrier(n int, patience time.Duration) *Barrier {
	return &Barrier{N: n, Patience: patience, all: make(chan struct{})}
}

// Spec implements tool.Tool.
func (b *Barrier) Spec() tool.Spec {
	return tool.Spec{Name: "wait", Description: "Returns x once all calls have started.", Output: tool.Any,
		Inputs: []tool.Input{{Name: "x", Type: tool.Any, Description: "What to return."}}}
}

// Call implements tool.Tool.
func (b *Barrier) Call(ctx context.Context, args map[string]any) (any, error) {
	b.mu.Lock()
	b.started++
	b.running++
	b.peak = max(b.peak, b.running)
	if b.started == b.N {
		close(b.all)
	}
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.running--
		b.mu.Unlock()
	}()
	select {
	case <-b.all:
		return args["x"], nil
	case <-time.After(b.Patience):
		b.mu.Lock()
		started := b.started
		b.mu.Unlock()
		return nil, fmt.Errorf("only %d of %d calls started within %s: the calls did not run concurrently", started, b.N, b.Patience)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Peak returns how many calls ran at once at most.
func (b *Barrier) Peak() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// searchTool is search(query, limit=None), whose results name the query.
var searchTool = Func{S: tool.Spec{Name: "search", Description: "Searches.", Output: tool.String, Inputs: []tool.Input{
	{Name: "query", Type: tool.String}, {Name: "limit", Type: tool.Integer, Nullable: true}}},
	F: func(_ context.Context, args map[string]any) (any, error) {
		if args["query"] == "boom" {
			return nil, fmt.Errorf("the search engine is down")
		}
		limit, _ := args["limit"].(int64)
		return fmt.Sprintf("results for %s (%d)", args["query"], limit), nil
	}}

// nameOf is name_of(tool): it returns what it was given, which a tool
// passed as a value makes a tool's name.
var nameOf = Func{S: tool.Spec{Name: "name_of", Output: tool.String, Inputs: []tool.Input{{Name: "tool", Type: tool.Any}}},
	F: func(_ context.Context, args map[string]any) (any, error) { return args["tool"], nil }}

// ToolCalls checks the ways code calls tools that every executor must
// support, with executors made by newExec as for Conformance: parallel()
// (concurrency shown by a barrier, results in order, errors in place or
// raised, max_workers), a call with one dict of arguments, a tool passed
// as an argument (help(web_search)), and tools and final_answer that
// code can neither rebind nor delete, nor leak into a later step.
func ToolCalls(t *testing.T, newExec func(t *testing.T) executors.Executor) {
	ctx := context.Background()
	run, ok := Run, OK
	withTools := func(t *testing.T, tools ...tool.Tool) executors.Executor {
		e := newExec(t)
		if err := e.SetTools(ctx, append(tools, searchTool, nameOf)); err != nil {
			t.Fatal(err)
		}
		return e
	}

	t.Run("parallel runs calls at once", func(t *testing.T) {
		b := NewBarrier(8, 10*time.Second)
		e := withTools(t, b)
		res := ok(t, e, "parallel(wait, list(range(8)))")
		want := []any{int64(0), int64(1), int64(2), int64(3), int64(4), int64(5), int64(6), int64(7)}
		if !reflect.DeepEqual(res.Value, want) {
			t.Fatalf("got %#v, want %#v", res.Value, want)
		}
		if b.Peak() != 8 {
			t.Errorf("peak concurrency %d, want 8", b.Peak())
		}
	})

	t.Run("parallel max_workers", func(t *testing.T) {
		// Two workers for three calls that each wait for three: one of the
		// first two must give up waiting before the third can start (and
		// find the three started).
		b := NewBarrier(3, 500*time.Millisecond)
		e := withTools(t, b)
		res := ok(t, e, "r = parallel(wait, [1, 2, 3], max_workers=2)\n[type(x).__name__ for x in r]")
		// Which of the first two gives up first is a race; the other may
		// still be waiting when the third starts, and then returns too.
		got, _ := res.Value.([]any)
		if len(got) != 3 || got[2] != "int" || (got[0] != "ToolError" && got[1] != "ToolError") {
			t.Errorf("got %#v, want a ToolError among the first two and 3 last", res.Value)
		}
		if b.Peak() > 2 {
			t.Errorf("peak concurrency %d with max_workers=2", b.Peak())
		}
	})

	t.Run("parallel argument forms and errors in place", func(t *testing.T) {
		e := withTools(t)
		res := ok(t, e, strings.Join([]string{
			`r = parallel(search, ["a", ("b", 2), {"query": "c", "limit": 3}, "boom", (1, 2, 3)])`,
			`[x if not isinstance(x, Exception) else type(x).__name__ + ": " + str(x) for x in r]`,
		}, "\n"))
		got, _ := res.Value.([]any)
		want := []any{"results for a (0)", "results for b (2)", "results for c (3)",
			"ToolError: ", "TypeError: search() takes 2 positional arguments but 3 were given"}
		if len(got) != len(want) {
			t.Fatalf("got %#v\nwant %#v", res.Value, want)
		}
		for i := range want {
			s, _ := got[i].(string)
			if i == 3 {
				// The message is the tool's own, which the runner prefixes.
				if !strings.HasPrefix(s, "ToolError: ") || !strings.HasSuffix(s, "the search engine is down") {
					t.Errorf("result %d: %q", i, s)
				}
				continue
			}
			if s != want[i] {
				t.Errorf("result %d: %q, want %q", i, s, want[i])
			}
		}
		res = ok(t, e, `parallel([(search, "x"), (name_of, search), ("search", {"query": "y"})])`)
		want = []any{"results for x (0)", "search", "results for y (0)"}
		if !reflect.DeepEqual(res.Value, want) {
			t.Errorf("calls form: got %#v, want %#v", res.Value, want)
		}
		res = ok(t, e, "parallel(search, [])")
		if !reflect.DeepEqual(res.Value, []any{}) {
			t.Errorf("no calls: got %#v", res.Value)
		}
	})

	t.Run("parallel raise_errors", func(t *testing.T) {
		e := withTools(t)
		res := run(t, e, `parallel(search, ["a", "boom", "boom"], raise_errors=True)`)
		if res.Err == nil || res.Err.Type != "ExceptionGroup" || !strings.Contains(res.Err.Message, "2 of 3") {
			t.Errorf("got %+v, want an ExceptionGroup for 2 of 3 calls", res.Err)
		}
		res = ok(t, e, "try:\n    parallel(search, ['boom'], raise_errors=True)\n    r = 'no error'\nexcept Exception as e:\n    r = type(e).__name__\nr")
		if res.Value != "ExceptionGroup" {
			t.Errorf("caught %#v", res.Value)
		}
	})

	t.Run("parallel refuses bad calls", func(t *testing.T) {
		e := withTools(t)
		for code, want := range map[string]string{
			"parallel(len, [1])":                      "TypeError",
			"parallel(search, 'abc')":                 "TypeError",
			"parallel(search, ['a'], max_workers=0)":  "ValueError",
			"parallel(search, ['a'], max_workers=65)": "ValueError",
			"parallel(search, list(range(1001)))":     "ValueError",
			"parallel([search])":                      "TypeError",
		} {
			res := run(t, e, code)
			if res.Err == nil || res.Err.Type != want {
				t.Errorf("%s: got %+v, want %s", code, res.Err, want)
			}
		}
	})

	t.Run("parallel respects the deadline", func(t *testing.T) {
		e := withTools(t, Func{S: tool.Spec{Name: "hang", Inputs: []tool.Input{{Name: "x", Type: tool.Any}}},
			F: func(ctx context.Context, _ map[string]any) (any, error) { <-ctx.Done(); return nil, ctx.Err() }})
		cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		start := time.Now()
		res, err := e.Execute(cctx, "parallel(hang, [1, 2, 3])")
		// The calls end at the deadline with errors in place; whether the
		// execution's result or its deadline reaches the host first is a
		// race, and either is right. A list of values is not.
		if err == nil && res.Err == nil && !strings.Contains(res.Repr, "Error") {
			t.Fatalf("hung calls returned %+v", res)
		}
		if time.Since(start) > 20*time.Second {
			t.Errorf("Execute returned %s after its deadline", time.Since(start))
		}
	})

	t.Run("one dict of arguments", func(t *testing.T) {
		e := withTools(t)
		res := ok(t, e, `[search({"query": "x"}), search({"query": "y", "limit": 2}), name_of({"tool": 1})]`)
		want := []any{"results for x (0)", "results for y (2)", map[string]any{"tool": int64(1)}}
		if !reflect.DeepEqual(res.Value, want) {
			t.Errorf("got %#v, want %#v", res.Value, want)
		}
	})

	t.Run("a tool as an argument", func(t *testing.T) {
		e := withTools(t)
		res := ok(t, e, `[name_of(search), name_of(tool=name_of), name_of("search")]`)
		if want := []any{"search", "name_of", "search"}; !reflect.DeepEqual(res.Value, want) {
			t.Errorf("got %#v, want %#v", res.Value, want)
		}
	})

	t.Run("tools print into the code's output", func(t *testing.T) {
		say := Func{S: tool.Spec{Name: "say", Inputs: []tool.Input{{Name: "text", Type: tool.String}}},
			F: func(ctx context.Context, args map[string]any) (any, error) {
				if !tool.Print(ctx, args["text"].(string)+"\n") {
					return nil, fmt.Errorf("the executor gave the tool no output")
				}
				return nil, nil
			}}
		e := withTools(t, say)
		res := ok(t, e, "print('before')\nsay('from the tool')\nparallel(say, ['a', 'a'])\nprint('after')")
		if res.Stdout != "before\nfrom the tool\na\na\nafter\n" {
			t.Errorf("stdout %q", res.Stdout)
		}
	})

	t.Run("tools cannot be rebound", func(t *testing.T) {
		e := withTools(t)
		for _, c := range []struct{ code, msg string }{
			{"search = 1", "search is a tool of this agent and cannot be reassigned; use another name"},
			{"final_answer = print", "final_answer is a tool of this agent and cannot be reassigned; use another name"},
			{"x = 1\nif x:\n    for search in [1]:\n        pass", "search is a tool of this agent and cannot be reassigned"},
			{"del search", "search is a tool of this agent and cannot be deleted"},
			{"def search(q):\n    return q", "search is a tool of this agent and cannot be reassigned"},
			{"import json as search", "search is a tool of this agent and cannot be reassigned"},
			{"def f():\n    global final_answer\n    final_answer = 1\nf()", "final_answer is a tool of this agent and cannot be reassigned"},
			{"try:\n    1/0\nexcept Exception as search:\n    pass", "search is a tool of this agent and cannot be reassigned"},
		} {
			res := run(t, e, c.code)
			if res.Err == nil || res.Err.Type != "SyntaxError" || !strings.Contains(res.Err.Message, c.msg) {
				t.Errorf("%q: got %+v, want SyntaxError %q", c.code, res.Err, c.msg)
			}
		}
		// Local names and attributes are the code's own.
		ok(t, e, "def f(search):\n    return search\nclass A:\n    search = 2\nr = [f(1), A.search, [search for search in [3]]]")
		res := ok(t, e, `search("still works")`)
		if res.Value != "results for still works (0)" {
			t.Errorf("after the refusals: %#v", res.Value)
		}
	})

	t.Run("nothing leaks into a later step", func(t *testing.T) {
		e := withTools(t)
		// However the code reaches the namespace, the next step has the tool.
		run(t, e, "try:\n    globals()['search'] = 1\nexcept Exception:\n    pass")
		res := ok(t, e, `search("q")`)
		if res.Value != "results for q (0)" {
			t.Errorf("step 2: %#v", res.Value)
		}
	})
}
