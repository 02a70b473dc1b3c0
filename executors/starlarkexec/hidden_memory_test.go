package starlarkexec

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/star-agent/star-agent/executors"
)

// peakGrowth runs code in e and returns the host's peak RSS growth. The
// heap is collected and its free pages returned to the system first, so
// that the figure does not depend on what earlier tests left mapped (pages
// a bomb can reuse without raising the RSS).
func peakGrowth(t *testing.T, e *Executor, code string) (executors.Result, int64) {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	before := peakRSS()
	res := run(t, e, code)
	return res, peakRSS() - before
}

// TestComprehensionBombAtDefaultBudget: a comprehension's list under
// construction lives on the operand stack, where the walk cannot see it.
// The monitor used to notice only once the heap had grown by twice the
// budget, so the bomb ran into the step limit first with the RSS grown by
// about 520 MiB; it must now stop with a MemoryError near the budget.
//
// The bound is the budget plus a quarter: the budget meters the bytes of
// the execution's objects, and Go's own overhead (size-class slack in spans,
// GC metadata, about 12% here) comes on top of them in the RSS, so from a
// clean heap the peak grows by about 290 MiB. (BenchmarkMemoryBombs reads
// less, about 230 MiB, because the bombs before it leave pages mapped that
// this one reuses.)
func TestComprehensionBombAtDefaultBudget(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read from /proc")
	}
	e := newTestExecutor(t, Options{})
	res, grown := peakGrowth(t, e, "x = [str(i) * 100 for i in range(10 ** 8)]")
	if res.Err == nil || res.Err.Type != "MemoryError" {
		t.Fatalf("want MemoryError, got %+v", res.Err)
	}
	budget := int64(executors.DefaultMaxMemory)
	t.Logf("peak RSS grew by %d MiB with a %d MiB budget", grown>>20, budget>>20)
	if grown > budget+budget/4 {
		t.Fatalf("peak RSS grew by %d MiB with a %d MiB budget", grown>>20, budget>>20)
	}
}

// TestHiddenMemoryNotChargedTwice: a comprehension under the budget whose
// list is dropped, then one whose list is kept, must both succeed; the
// hidden memory the monitor verified while the first ran must not be
// charged again once the second is visible in a global.
func TestHiddenMemoryNotChargedTwice(t *testing.T) {
	e := newTestExecutor(t, Options{})
	code := "n = len([str(i) * 100 for i in range(300000)])\n" +
		"x = [str(i) * 100 for i in range(300000)]\n" +
		"y = [str(i) * 10 for i in range(100000)]\n" +
		"n + len(x) + len(y)"
	res := run(t, e, code)
	if res.Err != nil || res.Repr != "700000" {
		t.Fatalf("%+v %s", res.Err, res.Repr)
	}
}

// TestDroppedHiddenMemoryFreesBudget: once a comprehension's list that the
// monitor found hidden is dropped, its memory must not keep a large
// allocation from being granted.
func TestDroppedHiddenMemoryFreesBudget(t *testing.T) {
	e := newTestExecutor(t, Options{})
	res := run(t, e, "n = len([str(i) * 100 for i in range(300000)])\ns = 'x' * (100 << 20)\nn + len(s)")
	if res.Err != nil || res.Repr != "105157600" {
		t.Fatalf("%+v %s", res.Err, res.Repr)
	}
}
