package itertools_test

import (
	"strings"
	"testing"

	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
)

// tee keeps the items one of its iterators has read and another has not:
// that buffer is charged to the budget (64 MiB in builtinstest.Run), so
// running one iterator of an endless tee far ahead is a MemoryError, not
// a process that grows until the deadline.
func TestTeeBufferIsCharged(t *testing.T) {
	src := "import itertools\na, b = itertools.tee(itertools.repeat(None))\nprint(next(itertools.islice(a, 10**8, None), None))\n"
	out, err := builtinstest.Run(t, src)
	if err == nil || !strings.Contains(err.Error(), "MemoryError") {
		t.Fatalf("got %q, %v; want a MemoryError", out, err)
	}
	// Read in step, the buffer stays small: the same loop ends on the
	// step limit, not on memory.
	src = "import itertools\na, b = itertools.tee(itertools.repeat(None))\nfor _ in a:\n    next(b)\n"
	if _, err := builtinstest.Run(t, src); err == nil || strings.Contains(err.Error(), "MemoryError") {
		t.Fatalf("got %v; want the step limit", err)
	}
}

// Huge r: CPython allocates r indices first (a MemoryError); the engine
// charges them instead of failing inside Go.
func TestCombinatoricsHugeR(t *testing.T) {
	for _, f := range []string{"permutations([1, 2], 10**15)", "combinations([1], 10**15)", "combinations_with_replacement([], 10**15)"} {
		out, err := builtinstest.Run(t, "import itertools\nprint(list(itertools."+f+"))\n")
		if err == nil || !strings.Contains(err.Error(), "MemoryError") {
			t.Errorf("%s: got %q, %v; want a MemoryError", f, out, err)
		}
	}
}
