package builtins_test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
	"github.com/star-agent/star-agent/pyfront"
	"github.com/star-agent/star-agent/vm/starlark"
)

// runWithBudget runs src with a memory budget of limit bytes and no
// engine measuring it: only the builtins' own grants can refuse.
func runWithBudget(t *testing.T, src string, limit int64) error {
	t.Helper()
	prog, err := pyfront.Lower("test.py", src)
	if err != nil {
		t.Fatal(err)
	}
	globals := builtinstest.Globals()
	th := &starlark.Thread{Name: "test"}
	core.SetBudget(th, &core.Budget{Limit: limit})
	return starlark.ExecREPLChunk(prog.File, th, globals)
}

// TestBuildersChargeWhatTheyHold: each builder makes about a million new
// values that take 50 to 200 bytes each, far more than the 16-byte slot
// they were charged before; under a 40 MiB budget each must be refused,
// while a list of a million existing values (16 MiB of slots) fits.
func TestBuildersChargeWhatTheyHold(t *testing.T) {
	const budget = 40 << 20
	if err := runWithBudget(t, "x = list(range(10 ** 6))\ny = list(x)", budget); err != nil {
		t.Fatalf("a million slots under %d MiB: %v", budget>>20, err)
	}
	bombs := map[string]string{
		"product":         "import itertools\nx = list(itertools.product(range(10), repeat=6))",
		"permutations":    "import itertools\nx = list(itertools.permutations(range(12), 6))",
		"combinations":    "import itertools\nx = tuple(itertools.combinations(range(40), 5))",
		"zip":             "x = list(zip(range(10 ** 6), range(10 ** 6), range(10 ** 6)))",
		"enumerate":       "x = list(enumerate(range(10 ** 6)))",
		"map":             "x = list(map(lambda i: (i, i, i), range(10 ** 6)))",
		"repeat":          "import itertools\nx = list(itertools.repeat('x' * 100, 10 ** 6))",
		"accumulate":      "import itertools\nx = list(itertools.accumulate(range(10 ** 6), lambda a, b: (b, b)))",
		"dict zip":        "x = dict(zip(range(4 * 10 ** 5), range(4 * 10 ** 5)))",
		"dict.update":     "x = {}\nx.update(zip(range(10 ** 6), range(10 ** 6)))",
		"Counter":         "import collections\nx = collections.Counter(range(10 ** 6))",
		"str.split":       "s = 'a ' * 10 ** 6\nx = s.split()",
		"str.splitlines":  "s = 'a\\n' * 10 ** 6\nx = s.splitlines()",
		"heapq.merge":     "import heapq\nx = list(heapq.merge(zip(range(6 * 10 ** 5)), zip(range(6 * 10 ** 5))))",
		"heapq.nsmallest": "import heapq\nx = heapq.nsmallest(3 * 10 ** 5, zip(range(10 ** 6), range(10 ** 6)))",
		"groupby":         "import itertools\nx = list(itertools.groupby(range(10 ** 6)))",
		"sorted keys":     "x = list(range(3 * 10 ** 5))\ny = sorted(x, key=lambda v: (v, v, v, v))",
		"dict items":      "d = dict.fromkeys(range(4 * 10 ** 5))\nx = list(d.items())",
		"deepcopy":        "import copy\nx = tuple([(i,) * 10 for i in range(10 ** 4)])\ny = copy.deepcopy([x] * 30)",
		"re.search":       "import re\nx = re.search('b', 'a' * (12 << 20))",
		"filterfalse":     "import itertools\nx = list(itertools.filterfalse(lambda t: t[0] < 0, zip(range(10 ** 6), range(10 ** 6))))",
	}
	for name, src := range bombs {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			err := runWithBudget(t, src, budget)
			if err == nil || !strings.Contains(err.Error(), "MemoryError") {
				t.Fatalf("want a MemoryError under a %d MiB budget, got %v", budget>>20, err)
			}
		})
	}
}

// TestSizesAreMeasured checks the constants of sizes.go against the live
// heap that values of each shape really take (see the comment there), so
// that a change of Go or go.starlark.net cannot leave them stale unseen.
func TestSizesAreMeasured(t *testing.T) {
	const n = 1 << 19
	perElem := func(build func() any) float64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		keep := build()
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(keep)
		return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
	}
	list := func(f func(i int) starlark.Value) func() any {
		return func() any {
			vals := make([]starlark.Value, n)
			for i := range vals {
				vals[i] = f(i)
			}
			return starlark.NewList(vals)
		}
	}
	cases := []struct {
		name    string
		build   func() any
		charged int64
	}{
		{"10-tuple", list(func(i int) starlark.Value {
			t := make(starlark.Tuple, 10)
			for j := range t {
				t[j] = starlark.MakeInt(j)
			}
			return t
		}), core.SlotSize + core.ValueSize(make(starlark.Tuple, 10))},
		{"2-tuple", list(func(i int) starlark.Value { return starlark.Tuple{starlark.MakeInt(i), starlark.None} }),
			core.SlotSize + core.ValueSize(starlark.Tuple{starlark.None, starlark.None})},
		{"6-byte string", list(func(i int) starlark.Value { return starlark.String(strconv.Itoa(100000 + i)) }),
			core.SlotSize + core.ValueSize(starlark.String("100000"))},
		{"float", list(func(i int) starlark.Value { return starlark.Float(i) + 0.5 }),
			core.SlotSize + core.ValueSize(starlark.Float(0.5))},
		{"wide int", list(func(i int) starlark.Value { return starlark.MakeInt64(int64(i) << 40) }),
			core.SlotSize + core.ValueSize(starlark.MakeInt64(1<<40))},
		{"dict entry", func() any {
			d := starlark.NewDict(0)
			for i := 0; i < n; i++ {
				d.SetKey(starlark.MakeInt(i), starlark.MakeInt(i))
			}
			return d
		}, core.DictEntrySize},
	}
	for _, c := range cases {
		real := perElem(c.build)
		t.Logf("%s: %.1f bytes live, %d charged", c.name, real, c.charged)
		// Charging less than 85% of what is held lets a builder exceed
		// its budget by more than the garbage collector's slack.
		if float64(c.charged) < 0.85*real {
			t.Errorf("%s: charged %d bytes, holds %.1f", c.name, c.charged, real)
		}
	}
}
