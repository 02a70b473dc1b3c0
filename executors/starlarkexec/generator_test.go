package starlarkexec

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/internal/leaktest"
)

// Generators run on goroutines of their own: these tests check that they
// stay under the execution's limits and end with it.

const (
	// gen yields forever, doing a little work between yields.
	infiniteGen = "def gen():\n    n = 0\n    while True:\n        n += 1\n        yield n\n"
	// busyGen does all its work in its own thread before yielding.
	busyGen = "def busy():\n    n = 0\n    while True:\n        n += 1\n        if n % 10000000 == 0:\n            yield n\n"
)

// engine is what runs generators: a goroutine of the test's is one with
// a frame of the engine's.
const engine = "github.com/star-agent/star-agent/"

func TestGeneratorStepLimit(t *testing.T) {
	const limit = 20000
	for name, code := range map[string]string{
		"consumer loops": infiniteGen + "for x in gen():\n    pass",
		"body loops":     busyGen + "next(busy())",
		"nested":         infiniteGen + "def outer():\n    yield from gen()\nsum(outer())",
		"genexpr":        infiniteGen + "any(x < 0 for x in gen())",
	} {
		t.Run(name, func(t *testing.T) {
			e := newTestExecutor(t, Options{Limits: executors.Limits{MaxOperations: limit}})
			res := run(t, e, code)
			if res.Err == nil || res.Err.Type != "StepLimitError" {
				t.Fatalf("want StepLimitError, got %+v", res.Err)
			}
			// Steps of all threads count; each may overshoot by one
			// check interval.
			if res.Steps < limit || res.Steps > limit+3*interval {
				t.Fatalf("steps %d, limit %d", res.Steps, limit)
			}
		})
	}
}

func TestGeneratorTimeoutAndCancel(t *testing.T) {
	for name, code := range map[string]string{
		"consumer loops": infiniteGen + "for x in gen():\n    pass",
		"body loops":     busyGen + "next(busy())",
	} {
		t.Run(name, func(t *testing.T) {
			const timeout = 300 * time.Millisecond
			e := newTestExecutor(t, Options{Limits: executors.Limits{Timeout: timeout, MaxOperations: 1 << 62}})
			res := run(t, e, code)
			if res.Err == nil || res.Err.Type != "TimeoutError" {
				t.Fatalf("want TimeoutError, got %+v", res.Err)
			}
		})
		t.Run(name+"/cancel", func(t *testing.T) {
			e := newTestExecutor(t, Options{Limits: executors.Limits{MaxOperations: 1 << 62}})
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			res, err := e.Execute(ctx, code)
			if !errors.Is(err, context.Canceled) || res.Err == nil || res.Err.Type != "TimeoutError" {
				t.Fatalf("err %v, res.Err %+v", err, res.Err)
			}
			if r := run(t, e, "1 + 1"); r.Repr != "2" {
				t.Fatalf("after cancel: %+v", r)
			}
		})
	}
}

func TestGeneratorsEndWithTheExecution(t *testing.T) {
	goroutines := leaktest.Take(engine)
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxOperations: 200000}})
	for _, code := range []string{
		// Suspended generators kept in variables, in a list, abandoned
		// by a break, and nested in yield from.
		infiniteGen + "g = gen()\nnext(g)\nkeep = [gen() for _ in range(50)]\nfor k in keep:\n    next(k)\nfor x in gen():\n    break",
		"def tree(n):\n    yield n\n    if n < 30:\n        yield from tree(n + 1)\nt = tree(0)\nfor _ in range(20):\n    next(t)",
		// Executions that end with an error or at a limit.
		infiniteGen + "g = gen()\nnext(g)\n1 / 0",
		infiniteGen + "gs = [gen() for _ in range(10)]\nfor g in gs:\n    next(g)\nwhile True:\n    pass",
		infiniteGen + "g = gen()\nnext(g)\nfinal_answer(next(g))",
	} {
		run(t, e, code)
	}
	goroutines.Check(t)
	// A generator suspended when its step ended cannot be resumed.
	res := run(t, e, "next(g)")
	if res.Err == nil || res.Err.Type != "RuntimeError" || !strings.Contains(res.Err.Message, "code step that has ended") {
		t.Fatalf("resuming a generator of an ended step: %+v", res.Err)
	}
	// One created but not started can run in a later step.
	run(t, e, infiniteGen+"fresh = gen()")
	if res := run(t, e, "[next(fresh) for _ in range(3)]"); res.Err != nil || res.Repr != "[1, 2, 3]" {
		t.Fatalf("generator started in a later step: %+v %s", res.Err, res.Repr)
	}
	goroutines.Check(t)
}

func TestGeneratorTimeoutLeavesNoGoroutine(t *testing.T) {
	goroutines := leaktest.Take(engine)
	e := newTestExecutor(t, Options{Limits: executors.Limits{Timeout: 200 * time.Millisecond, MaxOperations: 1 << 62}})
	res := run(t, e, infiniteGen+"gs = [gen() for _ in range(20)]\nfor g in gs:\n    next(g)\n"+busyGen+"next(busy())")
	if res.Err == nil || res.Err.Type != "TimeoutError" {
		t.Fatalf("want TimeoutError, got %+v", res.Err)
	}
	run(t, e, "1") // waits for the executor
	goroutines.Check(t)
}

func TestGeneratorMemoryLimit(t *testing.T) {
	for name, code := range map[string]string{
		// Values only the generator's frame holds.
		"body hoards": "def hoard():\n    kept = []\n    while True:\n        kept.append('x' * 100000 + str(len(kept)))\n        yield len(kept)\nfor n in hoard():\n    pass",
		// Suspended generators, each with a goroutine.
		"many suspended": infiniteGen + "gs = []\nwhile True:\n    g = gen()\n    next(g)\n    gs.append(g)",
		// A genexpr feeding a growing list.
		"genexpr": "kept = []\nany(kept.append('y' * 100000 + str(i)) for i in range(10 ** 9))",
	} {
		t.Run(name, func(t *testing.T) {
			e := newTestExecutor(t, Options{Limits: executors.Limits{MaxMemory: 32 << 20, MaxOperations: 1 << 62, Timeout: 20 * time.Second}})
			res := run(t, e, code)
			if res.Err == nil || res.Err.Type != "MemoryError" {
				t.Fatalf("want MemoryError, got %+v", res.Err)
			}
		})
	}
}

func TestAbandonedGeneratorsAreReclaimed(t *testing.T) {
	// Each generator below is left suspended and unreachable; without
	// reclaiming them, their goroutines alone (GeneratorCost each) would
	// exceed the budget several times over.
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxMemory: 32 << 20, MaxOperations: 1 << 62, Timeout: 60 * time.Second}})
	res := run(t, e, infiniteGen+"total = 0\nfor i in range(10000):\n    total += next(gen())\ntotal")
	if res.Err != nil || res.Repr != "10000" {
		t.Fatalf("%+v %s", res.Err, res.Repr)
	}
}

func TestGeneratorSemantics(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxDepth: 60}})
	// Output of a generator and its consumer interleaves in order.
	res := run(t, e, "def g():\n    print('in 1')\n    yield\n    print('in 2')\n    yield\nfor _ in g():\n    print('out')")
	if res.Err != nil || res.Stdout != "in 1\nout\nin 2\nout\n" {
		t.Fatalf("%+v %q", res.Err, res.Stdout)
	}
	// final_answer in a generator ends the execution, whatever catches.
	res = run(t, e, "def g():\n    yield 1\n    final_answer('from gen')\ntry:\n    for x in g():\n        pass\nexcept BaseException:\n    print('caught')\nprint('after')")
	if !res.IsFinal || res.Value != "from gen" || res.Stdout != "" {
		t.Fatalf("final_answer: %+v final=%v value=%v stdout=%q", res.Err, res.IsFinal, res.Value, res.Stdout)
	}
	// An exception raised in the body has its type at the consumer.
	res = run(t, e, "def g():\n    yield {}['k']\nnext(g())")
	if res.Err == nil || res.Err.Type != "KeyError" || res.Err.Line != 2 {
		t.Fatalf("exception from a generator: %+v", res.Err)
	}
	// Unbounded recursion through generators is a RecursionError.
	res = run(t, e, "def g(n):\n    yield n\n    yield from g(n + 1)\nlist(g(0))")
	if res.Err == nil || res.Err.Type != "RecursionError" {
		t.Fatalf("recursive generators: %+v", res.Err)
	}
	res = run(t, e, "def g(n):\n    yield from g(n + 1)\nnext(g(0))")
	if res.Err == nil || res.Err.Type != "RecursionError" {
		t.Fatalf("recursive generators: %+v", res.Err)
	}
}
