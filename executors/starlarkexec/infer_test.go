package starlarkexec

import (
	"testing"

	"github.com/star-agent/star-agent/executors"
)

// The front end adds numbers without the concatenation guard when it can
// prove both operands numbers, trusting builtins such as range. A name
// rebound in an earlier step must withdraw that trust.

// TestReboundRangeKeepsPythonAddition: range rebound to yield bools; the
// sum must still be Python's (int + bool), not a TypeError from an
// unguarded Starlark addition.
func TestReboundRangeKeepsPythonAddition(t *testing.T) {
	e := newTestExecutor(t, Options{})
	run(t, e, "def range(n):\n    return [True] * n\n")
	res := run(t, e, "def f():\n    t = 0\n    for i in range(3):\n        t += i\n        t = t + i\n    return t\nprint(f())\n")
	if res.Err != nil || res.Stdout != "6\n" {
		t.Fatalf("got %q, %+v; want 6", res.Stdout, res.Err)
	}
}

// TestReboundRangeCannotDoubleUnguarded tries to use the trust to
// concatenate without the guard: range rebound to yield a list, which
// the loop then doubles. The budget must stop it.
func TestReboundRangeCannotDoubleUnguarded(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxMemory: 8 << 20}})
	run(t, e, "def range(n):\n    return [['x'] * 1000]\n")
	res := run(t, e, "def f():\n    for s in range(1):\n        for k in range(1):\n            pass\n        for j in [0] * 20:\n            s = s + s\n    return len(s)\nf()\n")
	if res.Err == nil || res.Err.Type != "MemoryError" {
		t.Fatalf("got %+v, want MemoryError", res.Err)
	}
}

// TestNumericLoopsStayExact: the inferred fast path computes what
// Python does, big integers and floats included.
func TestNumericLoopsStayExact(t *testing.T) {
	e := newTestExecutor(t, Options{})
	res := run(t, e, "def f(n):\n    t = 0\n    x = 0.5\n    for i in range(n):\n        t += i * i * i * 10**12\n        x = x + i\n    return t, x\nprint(f(1000))\n")
	if want := "(249500250000000000000000, 499500.5)\n"; res.Err != nil || res.Stdout != want {
		t.Fatalf("got %q, %+v; want %q", res.Stdout, res.Err, want)
	}
}
