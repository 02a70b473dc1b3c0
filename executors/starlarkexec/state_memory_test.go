package starlarkexec

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/executors"
)

// The tests of this file attack the memory accounting across steps: a
// step no longer walks the whole state when it starts (monitor.carried),
// so memory that grows a little each step, hides where no grant sees it,
// or changes in place in a value an earlier step built must still be
// found, and the limit must still hold.

// stateLimit is the budget of these tests: small, so that a few steps
// reach it.
const stateLimit = 32 << 20

// liveHeap returns the process's live heap after a collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// growAcrossSteps runs setup, then step again and again, and checks that
// the live heap never grows by much more than the budget and that the
// state cannot grow without end: a MemoryError must come (unless the
// heap shows that the memory is not held). It returns the number of
// steps that succeeded before the MemoryError, or -1.
func growAcrossSteps(t *testing.T, setup, step string, steps int) int {
	t.Helper()
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxMemory: stateLimit}})
	base := liveHeap()
	if res := run(t, e, setup); res.Err != nil {
		t.Fatalf("setup: %+v", res.Err)
	}
	bound := int64(stateLimit) + stateLimit/2
	for i := 0; i < steps; i++ {
		res := run(t, e, step)
		grown := liveHeap() - base
		if grown > bound {
			t.Fatalf("step %d: the live heap grew by %d MiB under a %d MiB budget (err %+v)", i, grown>>20, stateLimit>>20, res.Err)
		}
		if res.Err != nil {
			if res.Err.Type != "MemoryError" {
				t.Fatalf("step %d: %s: %s, want MemoryError", i, res.Err.Type, res.Err.Message)
			}
			if !strings.Contains(res.Err.Message, "memory limit of 32 MiB") {
				t.Errorf("step %d: message %q does not name the limit", i, res.Err.Message)
			}
			t.Logf("MemoryError after %d steps, live heap grown by %d MiB: %s", i, grown>>20, res.Err.Message)
			// The state keeps what the step bound: a step that does not
			// add to it runs, one that does fails again.
			if r := run(t, e, "1 + 1"); r.Err != nil || r.Repr != "2" {
				t.Fatalf("a step adding nothing after the MemoryError: %+v", r.Err)
			}
			if r := run(t, e, step); r.Err == nil || r.Err.Type != "MemoryError" {
				t.Fatalf("the step again after the MemoryError: err %+v, want MemoryError", r.Err)
			}
			if grown := liveHeap() - base; grown > bound {
				t.Fatalf("after the MemoryError: the live heap grew by %d MiB under a %d MiB budget", grown>>20, stateLimit>>20)
			}
			return i
		}
	}
	return -1
}

// TestStateMemoryGrowsAcrossSteps: each step adds a little to a value an
// earlier step built, with no builtin to grant it (list literals, appends,
// comprehensions), in every place a value can hide. Small increments (an
// eighth of the budget triggers a walk within a step; these stay below)
// and large ones alike must end in a MemoryError near the budget.
func TestStateMemoryGrowsAcrossSteps(t *testing.T) {
	places := []struct {
		name, setup, step string
		held              bool // the memory stays reachable from the state
	}{
		{"list append", "x = []", "for i in range(K):\n    x.append([i])", true},
		{"in place", "x = [None] * K", "for i in range(len(x)):\n    x[i] = [x[i], 0]", true},
		{"dict", "d = {}", "n = len(d)\nfor i in range(K):\n    d[n + i] = [i]", true},
		{"closure", "fs = []\ndef mk(v):\n    return lambda: v", "fs.append(mk([[i] for i in range(K)]))", true},
		{"instance", "class C:\n    pass\nobjs = []", "o = C()\no.v = [[i] for i in range(K)]\nobjs.append(o)", true},
		{"default argument", "fs = []", "def f(a=[[i] for i in range(K)]):\n    return a\nfs.append(f)", true},
		{"deque", "import collections\nd = collections.deque()", "d.append([[i] for i in range(K)])", true},
		{"set of tuples", "s = set()", "n = len(s)\nfor i in range(K):\n    s.add((n + i, 0))", true},
		{"generator", "gs = []\ndef g(v):\n    yield 1\n    yield v", "it = g([[i] for i in range(K)])\nnext(it)\ngs.append(it)", false},
		{"rebound chain", "x = None", "x = [x, [[i] for i in range(K)]]", true},
	}
	// An element [i] takes about 80 bytes with its slot: K elements per
	// step make about 1.8 MiB (small, under the eighth of the budget that
	// triggers a walk within a step) or 6 MiB (large).
	for _, size := range []struct {
		name string
		k    int
	}{{"small", 24_000}, {"large", 80_000}} {
		for _, p := range places {
			t.Run(size.name+"/"+p.name, func(t *testing.T) {
				k := fmt.Sprint(size.k)
				setup := strings.ReplaceAll(p.setup, "K", k)
				step := strings.ReplaceAll(p.step, "K", k)
				steps := 3 * stateLimit / (size.k * 80)
				n := growAcrossSteps(t, setup, step, steps)
				if n < 0 && p.held {
					t.Fatalf("%d steps each holding about %d KiB more ran under a %d MiB budget without a MemoryError", steps, size.k*80>>10, stateLimit>>20)
				}
			})
		}
	}
}

// TestStateMemoryRebindFreesBudget: what earlier steps built and then
// dropped must not count against later steps, whether it was granted (a
// string) or not (a comprehension); and what they kept must.
func TestStateMemoryRebindFreesBudget(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxMemory: stateLimit}})
	// 40% of the budget each time, 15 times over.
	for i := 0; i < 15; i++ {
		code := "x = [[i] for i in range(160000)]"
		if i%2 == 1 {
			code = "x = 'ab' * (13 << 19)\ny = None"
		}
		if res := run(t, e, code); res.Err != nil {
			t.Fatalf("step %d (%s): %+v", i, code, res.Err)
		}
	}
	// (A step's old globals stay in the executor's dictionary until it
	// ends: drop them in one step, allocate in the next.)
	run(t, e, "x = None")
	if res := run(t, e, "s = 'a' * (26 << 20)\nlen(s)"); res.Err != nil || res.Repr != "27262976" {
		t.Fatalf("a string of 26 MiB after the others were dropped: %+v %s", res.Err, res.Repr)
	}
	// Kept: the third 40% does not fit.
	run(t, e, "s = None")
	var res executors.Result
	for i, code := range []string{"a = [[i] for i in range(160000)]", "b = [[i] for i in range(160000)]", "c = [[i] for i in range(160000)]"} {
		res = run(t, e, code)
		if i < 2 && res.Err != nil {
			t.Fatalf("%s: %+v", code, res.Err)
		}
	}
	if res.Err == nil || res.Err.Type != "MemoryError" {
		t.Fatalf("three lists of 40%% of the budget each, all kept: err %+v, want MemoryError", res.Err)
	}
}

// TestStateMemoryHugeValueThenRebind: granted values rebound step after
// step leave room for more; kept, they do not; dropped, they do again.
func TestStateMemoryHugeValueThenRebind(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxMemory: stateLimit}})
	for i := 0; i < 6; i++ {
		if res := run(t, e, "x = 'a' * (10 << 20)\nx = x.upper()\nlen(x)"); res.Err != nil || res.Repr != "10485760" {
			t.Fatalf("step %d: %+v %s", i, res.Err, res.Repr)
		}
	}
	if res := run(t, e, "y = x.lower()\nz = y.upper()\nw = z.lower()"); res.Err == nil || res.Err.Type != "MemoryError" {
		t.Fatalf("four strings of 10 MiB under 32 MiB: err %+v, want MemoryError", res.Err)
	}
	run(t, e, "x = None\ny = None\nz = None\nw = None")
	if res := run(t, e, "y = 'b' * (24 << 20)\nlen(y)"); res.Err != nil || res.Repr != "25165824" {
		t.Fatalf("after dropping x: %+v %s", res.Err, res.Repr)
	}
}

// TestStateMemoryManySmallSteps: many steps that each allocate a little
// and keep nothing must not drift into a MemoryError (what the process
// allocated since the last walk is a bound, not a charge).
func TestStateMemoryManySmallSteps(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxMemory: stateLimit}})
	run(t, e, "x = [[i] for i in range(100000)]") // a quarter of the budget, kept
	for i := 0; i < 300; i++ {
		if res := run(t, e, "t = [[i] for i in range(2000)]\ns = 'z' * 100000\nlen(x) + len(s)"); res.Err != nil {
			t.Fatalf("step %d: %+v", i, res.Err)
		}
	}
}

// TestStateMemoryCreepsPastTheAllowance: steps that each add a little
// less than the allowance a state over the budget gets (a sixty-fourth of
// the budget) must not grow it without end: the allowance is measured from
// what the last failed step left, not from the last step that passed. (It
// was: 400 such steps grew the live heap by 99 MiB under a 32 MiB budget.)
func TestStateMemoryCreepsPastTheAllowance(t *testing.T) {
	if testing.Short() {
		t.Skip("about 100 steps near the budget")
	}
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxMemory: stateLimit}})
	base := liveHeap()
	run(t, e, "x = []")
	// 4,000 one-element lists: about 320 KiB a step, under the 512 KiB
	// allowance and under the pacing of the walks within a step.
	const step = "for i in range(4000):\n    x.append([i])"
	failures, passedSince := 0, 0
	for i := 0; i < 400 && failures < 5; i++ {
		res := run(t, e, step)
		if grown := liveHeap() - base; grown > stateLimit+stateLimit/2 {
			t.Fatalf("step %d: the live heap grew by %d MiB under a %d MiB budget", i, grown>>20, stateLimit>>20)
		}
		switch {
		case res.Err == nil:
			passedSince++
			// Past the first failure, one step in the allowance may pass,
			// not more.
			if failures > 0 && passedSince > 2 {
				t.Fatalf("step %d: %d steps adding 320 KiB each passed after a MemoryError", i, passedSince)
			}
		case res.Err.Type == "MemoryError":
			failures++
			passedSince = 0
		default:
			t.Fatalf("step %d: %+v", i, res.Err)
		}
	}
	if failures == 0 {
		t.Fatal("400 steps each holding about 320 KiB more ran under a 32 MiB budget without a MemoryError")
	}
}
