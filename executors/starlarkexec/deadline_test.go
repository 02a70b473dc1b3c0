package starlarkexec

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/tool"
)

// These tests try to make an execution outlive its deadline, or leave the
// executor locked behind it. They bound only how long a call may take
// before it counts as hung (hangBound, while the attack would hold it for
// a minute or more); figures are in bench_deadline_test.go.

// hangBound is how long after its deadline an Execute or a Close may take
// before the test calls it hung: far below what the attacks would hold it
// for, far above what a loaded machine or -race adds.
const hangBound = 30 * time.Second

// stuckTool is a tool that ignores its context and returns only when the
// test releases it: Go work no deadline can stop.
type stuckTool struct {
	release chan struct{}
	once    sync.Once
}

func newStuckTool(t *testing.T) (*stuckTool, tool.Tool) {
	s := &stuckTool{release: make(chan struct{})}
	t.Cleanup(s.free)
	return s, runnertest.Func{S: tool.Spec{Name: "stuck"}, F: func(context.Context, map[string]any) (any, error) {
		<-s.release
		return "done", nil
	}}
}

func (s *stuckTool) free() { s.once.Do(func() { close(s.release) }) }

// executeWithin runs code and fails the test if Execute has not returned
// within bound.
func executeWithin(t *testing.T, e *Executor, code string, bound time.Duration) executors.Result {
	t.Helper()
	type reply struct {
		res executors.Result
		err error
	}
	ch := make(chan reply, 1)
	go func() {
		res, err := e.Execute(context.Background(), code)
		ch <- reply{res, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("Execute(%.60q): %v", code, r.err)
		}
		return r.res
	case <-time.After(bound):
		t.Fatalf("Execute(%.60q) had not returned after %s", code, bound)
	}
	return executors.Result{}
}

// closeWithin fails the test if Close has not returned within bound.
func closeWithin(t *testing.T, e *Executor, bound time.Duration) {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- e.Close() }()
	select {
	case err := <-ch:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(bound):
		t.Fatalf("Close had not returned after %s", bound)
	}
}

// checkUsable checks that the executor runs code again at once, and that
// the result says the earlier state was lost when lost is set.
func checkUsable(t *testing.T, e *Executor, lost bool) {
	t.Helper()
	res := executeWithin(t, e, "1 + 1", hangBound)
	if res.Err != nil || res.Repr != "2" {
		t.Fatalf("1 + 1 after the attack: repr %q, err %v", res.Repr, res.Err)
	}
	said := strings.Contains(strings.Join(res.Notes, "\n"), "defined before are gone")
	if said != lost {
		t.Errorf("notes after the attack %q: want a note that state was lost: %v", res.Notes, lost)
	}
}

// TestAbandonedExecutionFreesExecutor: a tool that ignores cancellation
// holds the execution past its deadline. Execute must report the timeout
// at once, and the next Execute and Close must not wait for the tool (they
// used to wait for it, so the CLI never exited).
func TestAbandonedExecutionFreesExecutor(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{Timeout: 200 * time.Millisecond}})
	stuck, tl := newStuckTool(t)
	if err := e.SetTools(context.Background(), []tool.Tool{tl}); err != nil {
		t.Fatal(err)
	}
	if err := e.SetVariables(context.Background(), map[string]any{"task": "count"}); err != nil {
		t.Fatal(err)
	}
	run(t, e, "x = 41\ndef f():\n    return x + 1\n")

	res := executeWithin(t, e, "x = 1000\nstuck()\nx = 2000", 200*time.Millisecond+hangBound)
	if res.Err == nil || res.Err.Type != "TimeoutError" || !strings.Contains(res.Err.Message, "defined before are gone") {
		t.Fatalf("want a TimeoutError that says the state was lost, got %+v", res.Err)
	}

	// The tool still runs: the executor starts afresh meanwhile.
	checkUsable(t, e, true)
	res = executeWithin(t, e, "x", hangBound)
	if res.Err == nil || res.Err.Type != "NameError" {
		t.Errorf("x after the restart: want NameError, got %q %+v", res.Repr, res.Err)
	}
	res = executeWithin(t, e, "y = task + '!'\nstuck", hangBound)
	if res.Err != nil || !strings.Contains(res.Repr, "stuck") {
		t.Errorf("the tools and the caller's variables must survive the restart: %q %+v", res.Repr, res.Err)
	}

	// The abandoned code ends; it must not reach the new state.
	stuck.free()
	deadline := time.Now().Add(5 * time.Second)
	for e.abandoned.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	res = executeWithin(t, e, "try:\n    r = x\nexcept NameError:\n    r = 'no x'\n(y, r)", hangBound)
	if res.Err != nil || res.Repr != "('count!', 'no x')" {
		t.Errorf("the new state after the abandoned code ended: %q %+v", res.Repr, res.Err)
	}
	closeWithin(t, e, hangBound)
}

// TestCloseDoesNotWaitForAbandonedWork: Close right after an abandoned
// execution, and Close during an execution, return at once.
func TestCloseDoesNotWaitForAbandonedWork(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{Timeout: 100 * time.Millisecond}})
	_, tl := newStuckTool(t)
	if err := e.SetTools(context.Background(), []tool.Tool{tl}); err != nil {
		t.Fatal(err)
	}
	executeWithin(t, e, "stuck()", 100*time.Millisecond+hangBound)
	closeWithin(t, e, hangBound)
	if _, err := e.Execute(context.Background(), "1"); err == nil {
		t.Error("Execute after Close must fail")
	}

	// Close while an execution with a long deadline is stuck in the tool.
	e2 := newTestExecutor(t, Options{Limits: executors.Limits{Timeout: time.Hour}})
	if err := e2.SetTools(context.Background(), []tool.Tool{tl}); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	go func() {
		close(started)
		e2.Execute(context.Background(), "stuck()")
	}()
	<-started
	time.Sleep(100 * time.Millisecond)
	closeWithin(t, e2, hangBound)
}

// TestUserCodeInExportHasTheDeadline: a user __repr__ (or __str__) that
// sleeps or loops runs when the engine renders a final answer, the last
// expression's value or a builtin's error message. It used to run on a
// thread of its own with no deadline, after the execution's deadline had
// been lifted.
func TestUserCodeInExportHasTheDeadline(t *testing.T) {
	const timeout = 300 * time.Millisecond
	slow := "import time\nclass C:\n    def __repr__(self):\n        time.sleep(60)\n        return 'C'\n"
	loop := "class C:\n    def __repr__(self):\n        n = 0\n        while True:\n            n += 1\n        return 'C'\n"
	cases := map[string]string{
		"final answer, sleeping repr":        slow + "final_answer(C())",
		"final answer, looping repr":         loop + "final_answer(C())",
		"last expression, sleeping repr":     slow + "C()",
		"last expression, looping repr":      loop + "[C()]",
		"final answer in a dict":             slow + "final_answer({'a': [C()]})",
		"KeyError message, sleeping repr":    slow + "d = {}\nd[C()]",
		"object key of a returned dict":      slow + "final_answer({C(): 1})",
		"dataclass field with sleeping repr": slow + "from dataclasses import dataclass\n@dataclass\nclass D:\n    c: object\nfinal_answer(D(C()))",
	}
	for name, code := range cases {
		t.Run(name, func(t *testing.T) {
			e := newTestExecutor(t, Options{Limits: executors.Limits{Timeout: timeout, MaxOperations: 1 << 40}, AuthorizedImports: []string{"dataclasses"}})
			// A loaded machine may keep the stopped code from a CPU past
			// the abandon grace: the engine then starts afresh and says
			// so, and the attempt is tried again (see stopsAtDeadline).
			for attempt := 1; ; attempt++ {
				run(t, e, "before = 1")
				res := executeWithin(t, e, code, timeout+hangBound)
				if res.Err == nil || res.Err.Type != "TimeoutError" {
					t.Fatalf("want TimeoutError, got value %q err %+v", res.Repr, res.Err)
				}
				if res.IsFinal {
					t.Error("a final answer whose repr timed out must not count as given")
				}
				waitAbandonedDone(t, e)
				abandoned := strings.Contains(res.Err.Message, startedAfresh)
				res = executeWithin(t, e, "before + 1", hangBound)
				if !abandoned {
					// Stopped at its next step: state kept.
					if res.Err != nil || res.Repr != "2" {
						t.Errorf("after the attack: %q %+v", res.Repr, res.Err)
					}
					break
				}
				if res.Err == nil || res.Err.Type != "NameError" || len(res.Notes) == 0 {
					t.Errorf("after an abandoned attack: %q %+v, notes %q; want a NameError and a note", res.Repr, res.Err, res.Notes)
				}
				if attempt == 10 {
					t.Fatalf("abandoned 10 times out of 10: the user code does not stop within the grace of its deadline")
				}
				t.Logf("attempt %d abandoned (a loaded machine?)", attempt)
			}
			closeWithin(t, e, hangBound)
		})
	}
}

// TestExecutionHeldPastDeadline runs attacks that hold the execution past
// its deadline in Go code (the front end, compiling, a big-integer builtin,
// a tool): each must end soon after its deadline, and the executor must be
// usable at once.
func TestExecutionHeldPastDeadline(t *testing.T) {
	const timeout = 300 * time.Millisecond
	chain := func(n int, term, op string) string {
		var b strings.Builder
		b.WriteString("x = ")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(op)
			}
			b.WriteString(term)
		}
		return b.String()
	}
	cases := []struct {
		name string
		code string
		want []string // acceptable error types; the deadline, or a limit checked before the work
	}{
		{"lowering a long + chain", chain(70_000, "1", "+"), []string{"TimeoutError", "SyntaxError", "RecursionError", "MemoryError"}},
		{"compiling a long ternary chain", "x = " + strings.Repeat("1 if 1 else ", 100_000) + "1", []string{"TimeoutError", "SyntaxError", "RecursionError", "MemoryError"}},
		{"pow with a huge modulus", "pow(3, 2**60000+1, 2**60000+3)", []string{"TimeoutError", "ValueError", "OverflowError", "MemoryError"}},
		// In a function: a deep global would slow every later execution's
		// memory walk, which is not what this test is about.
		{"a deep final answer", "def f():\n    x = []\n    for i in range(300000):\n        x = [x]\n    return x\nfinal_answer(f())", []string{"TimeoutError", "RecursionError"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTestExecutor(t, Options{Limits: executors.Limits{Timeout: timeout, MaxOperations: 1 << 40}})
			res := executeWithin(t, e, c.code, timeout+hangBound)
			if res.Err == nil || !contains(c.want, res.Err.Type) {
				t.Fatalf("want one of %v, got %q %+v", c.want, res.Repr, res.Err)
			}
			lost := strings.Contains(res.Err.Message, "defined before are gone")
			checkUsable(t, e, lost)
			closeWithin(t, e, hangBound)
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestDeepFinalAnswer: rendering a final answer nested 300,000 deep was
// quadratic in the depth (a minute for 200,000). It is refused as CPython
// refuses it (RecursionError), in linear time; so is a nest of values that
// render their own parts (deque of deque of ...), whose printers each
// started counting the depth afresh.
func TestDeepFinalAnswer(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{Timeout: 10 * time.Second, MaxOperations: 1 << 40}})
	for name, code := range map[string]string{
		"list":  "x = []\nfor i in range(300000):\n    x = [x]\nfinal_answer(x)",
		"deque": "from collections import deque\nx = deque()\nfor i in range(100000):\n    x = deque([x])\nfinal_answer(x)",
		"repr":  "from collections import deque\nx = deque()\nfor i in range(100000):\n    x = deque([x])\ns = repr(x)",
	} {
		res := executeWithin(t, e, code, 10*time.Second+hangBound)
		if res.Err == nil || res.Err.Type != "RecursionError" {
			t.Errorf("%s: want RecursionError, got %.100q %+v", name, res.Repr, res.Err)
		}
	}
	// A nest CPython can print still prints.
	res := run(t, e, "x = []\nfor i in range(50):\n    x = [x]\nfinal_answer(x)")
	if res.Err != nil || res.Repr != strings.Repeat("[", 51)+strings.Repeat("]", 51) {
		t.Errorf("a 50-deep answer: %q %+v", res.Repr, res.Err)
	}
}
