package starlarkexec

import (
	"context"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// The engine's hot paths (integer arithmetic, sorting, dict building,
// join, function calls), each timed against CPython running the same
// program, before and after the engine's runs: medians of the engine's
// runs against the median of CPython's timeit repeats (x-cpython), and
// best against best (x-cpython-min), which a loaded machine disturbs
// least.

var hotPrograms = []struct{ name, setup, stmt string }{
	{"fib25", "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n", "r = fib(25)"},
	{"sumsq1M", "def loop():\n    t = 0\n    for i in range(1000000):\n        t += i * i\n    return t\n", "r = loop()"},
	{"mul1M", "def loop():\n    for i in range(1000000):\n        t = i * 2\n    return t\n", "r = loop()"},
	{"add1M", "def loop():\n    for i in range(1000000):\n        t = i + 2\n    return t\n", "r = loop()"},
	{"floordivmod1M", "def loop():\n    t = 0\n    for i in range(1000000):\n        t += i // 7 + i % 7\n    return t\n", "r = loop()"},
	{"dict100k", "def build():\n    d = {}\n    for i in range(100000):\n        d[i] = i * i\n    return d\n", "r = build()"},
	{"dictcomp100k", "", "r = {i: i * i for i in range(100000)}"},
	{"join100k", "parts = [str(i) for i in range(100000)]\n", "r = ','.join(parts)"},
	{"buildjoin100k", "def build():\n    parts = []\n    for i in range(100000):\n        parts.append(str(i))\n    return ','.join(parts)\n", "r = build()"},
	{"sort100k-ints", "import random\nrandom.seed(1)\nxs = [random.randrange(10**9) for _ in range(100000)]\n", "r = sorted(xs)"},
	{"sort100k-floats", "import random\nrandom.seed(1)\nxs = [random.random() for _ in range(100000)]\n", "r = sorted(xs)"},
	{"sort100k-strs", "import random\nrandom.seed(1)\nxs = [str(random.randrange(10**9)) for _ in range(100000)]\n", "r = sorted(xs)"},
	{"sort100k-key", "import random\nrandom.seed(1)\nxs = [random.randrange(10**9) for _ in range(100000)]\n", "r = sorted(xs, key=lambda v: -v)"},
	{"sort100k-tuples", "import random\nrandom.seed(1)\nxs = [(random.randrange(100), random.randrange(10**9)) for _ in range(100000)]\n", "r = sorted(xs)"},
	{"eq100k-tuples", "a = [(i, str(i)) for i in range(100000)]\nb = [(i, str(i)) for i in range(100000)]\n", "r = a == b"},
	{"eq-small100k", "def loop():\n    a, b, n = [1, 2, (3, 4)], [1, 2, (3, 4)], 0\n    for i in range(100000):\n        if a == b:\n            n += 1\n    return n\n", "r = loop()"},
	{"in-list100k", "def loop():\n    xs, n = list(range(50)), 0\n    for i in range(100000):\n        if i % 100 in xs:\n            n += 1\n    return n\n", "r = loop()"},
	{"dict-tuple-keys100k", "d = {(i, i): i for i in range(100000)}\ndef loop():\n    t = 0\n    for i in range(100000):\n        t += d[(i, i)]\n    return t\n", "r = loop()"},
}

// hotCPython times stmt in CPython: seven timeit repeats, each a
// duration per run in nanoseconds; nil when python3 is missing.
func hotCPython(b *testing.B, setup, stmt string) []float64 {
	b.Helper()
	script := "import timeit\n" +
		"t = timeit.Timer(" + strconv.Quote(stmt) + ", " + strconv.Quote(setup) + ")\n" +
		"n, _ = t.autorange()\n" +
		"print(*(r / n * 1e9 for r in t.repeat(7, n)))\n"
	out, err := exec.Command("python3", "-c", script).Output()
	if err != nil {
		b.Logf("python3 unavailable, no CPython figure: %v", err)
		return nil
	}
	var runs []float64
	for _, f := range strings.Fields(string(out)) {
		ns, err := strconv.ParseFloat(f, 64)
		if err != nil {
			b.Fatalf("python3 printed %q", out)
		}
		runs = append(runs, ns)
	}
	return runs
}

func hotReport(b *testing.B, times []time.Duration, py []float64) {
	slices.Sort(times)
	med := float64(times[len(times)/2].Nanoseconds())
	best := float64(times[0].Nanoseconds())
	b.ReportMetric(med, "median-ns")
	if len(py) > 0 {
		slices.Sort(py)
		b.ReportMetric(py[len(py)/2], "cpython-ns")
		b.ReportMetric(med/py[len(py)/2], "x-cpython")
		b.ReportMetric(best/py[0], "x-cpython-min")
	}
}

// BenchmarkHot runs each hot-path program in the engine, limits on.
func BenchmarkHot(b *testing.B) {
	for _, p := range hotPrograms {
		b.Run(p.name, func(b *testing.B) {
			e := newTestExecutor(b, Options{Limits: executors.Limits{Timeout: time.Minute, MaxOperations: 1 << 62}})
			ctx := context.Background()
			if res, _ := e.Execute(ctx, p.setup); res.Err != nil {
				b.Fatal(res.Err)
			}
			py := hotCPython(b, p.setup, p.stmt)
			times := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if res, _ := e.Execute(ctx, p.stmt); res.Err != nil {
					b.Fatal(res.Err)
				}
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			hotReport(b, times, append(py, hotCPython(b, p.setup, p.stmt)...))
		})
	}
}

// BenchmarkHotPlainStarlark runs fib(25) in go.starlark.net without the
// front end or the runtime, to measure what the lowering costs per call.
func BenchmarkHotPlainStarlark(b *testing.B) {
	const src = "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
	opts := &syntax.FileOptions{Recursion: true}
	th := &starlark.Thread{Name: "fib"}
	globals, err := starlark.ExecFileOptions(opts, th, "fib.star", src, nil)
	if err != nil {
		b.Fatal(err)
	}
	fib := globals["fib"]
	py := hotCPython(b, src, "r = fib(25)")
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		r, err := starlark.Call(th, fib, starlark.Tuple{starlark.MakeInt(25)}, nil)
		if err != nil || r.String() != "75025" {
			b.Fatal(r, err)
		}
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	hotReport(b, times, append(py, hotCPython(b, src, "r = fib(25)")...))
}
