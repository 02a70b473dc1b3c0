package local

import (
	"context"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
)

// typicalAction is the action of the kind models write that every
// executor's benchmarks run (runnertest.TypicalAction).
const typicalAction = runnertest.TypicalAction

// cpython times stmt in CPython with timeit and returns nanoseconds per
// run, or 0 when python3 is missing.
func cpython(b *testing.B, setup, stmt string) float64 {
	b.Helper()
	script := "import timeit\n" +
		"setup = " + strconv.Quote(setup) + "\n" +
		"stmt = " + strconv.Quote(stmt) + "\n" +
		"t = timeit.Timer(stmt, setup, globals={'print': lambda *a, **k: None})\n" +
		"n, _ = t.autorange()\n" +
		"import statistics\n" +
		"print(statistics.median(t.repeat(7, n)) / n * 1e9)\n"
	out, err := exec.Command("python3", "-c", script).Output()
	if err != nil {
		b.Logf("python3 unavailable, no CPython figure: %v", err)
		return 0
	}
	ns, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		b.Fatalf("python3 printed %q", out)
	}
	return ns
}

func reportVsCPython(b *testing.B, start time.Time, cpythonNs float64) {
	ns := float64(time.Since(start).Nanoseconds()) / float64(b.N)
	if cpythonNs > 0 {
		b.ReportMetric(cpythonNs, "cpython-ns/op")
		b.ReportMetric(ns/cpythonNs, "x-cpython")
	}
}

// BenchmarkTypicalAction measures one Execute of a 30-line action (front
// end, compile, run) against CPython's compile()+exec() of the same
// source. The comparison is of medians: each Execute is timed, and
// CPython's figure is the median of seven timeit repeats.
func BenchmarkTypicalAction(b *testing.B) {
	e := newTestExecutor(b, Options{})
	ctx := context.Background()
	if res, _ := e.Execute(ctx, typicalAction); res.Err != nil {
		b.Fatal(res.Err)
	}
	py := cpython(b, "src = "+strconv.Quote(typicalAction), "exec(compile(src, '<step>', 'exec'), {'print': lambda *a: None})")
	times := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		e.Execute(ctx, typicalAction)
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	med := float64(median(times).Nanoseconds())
	b.ReportMetric(med, "median-ns")
	if py > 0 {
		b.ReportMetric(py, "cpython-ns/op")
		b.ReportMetric(med/py, "x-cpython")
	}
}

var programs = []struct{ name, setup, stmt string }{
	{"fib25", "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n", "r = fib(25)"},
	{"loop1M", "def loop():\n    t = 0\n    for i in range(1000000):\n        t += i\n    return t\n", "r = loop()"},
	{"dict100k", "def build():\n    d = {}\n    for i in range(100000):\n        d[i] = i\n    return d\n", "r = build()"},
	{"join100k", "def build():\n    parts = []\n    for i in range(100000):\n        parts.append(str(i))\n    return ','.join(parts)\n", "r = build()"},
}

// BenchmarkPrograms runs CPU-bound programs in the engine, with its limits
// on, side by side with CPython.
func BenchmarkPrograms(b *testing.B) {
	for _, p := range programs {
		b.Run(p.name, func(b *testing.B) {
			e := newTestExecutor(b, Options{Limits: executors.Limits{Timeout: time.Minute, MaxSteps: 1 << 62}})
			ctx := context.Background()
			if res, _ := e.Execute(ctx, p.setup); res.Err != nil {
				b.Fatal(res.Err)
			}
			py := cpython(b, p.setup, p.stmt)
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if res, _ := e.Execute(ctx, p.stmt); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
			b.StopTimer()
			reportVsCPython(b, start, py)
		})
	}
}

// BenchmarkTimeoutOvershoot reports how long after its deadline a runaway
// execution returns.
func BenchmarkTimeoutOvershoot(b *testing.B) {
	const timeout = 20 * time.Millisecond
	cases := map[string]string{
		"loop":      "while True:\n    x = 1",
		"sort-huge": "x = list(range(2000000))\nfor i in range(100):\n    x = sorted(x, reverse=(i % 2 == 0))",
	}
	for name, code := range cases {
		b.Run(name, func(b *testing.B) {
			e := newTestExecutor(b, Options{Limits: executors.Limits{Timeout: timeout, MaxSteps: 1 << 62}})
			var worst time.Duration
			var total time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				res, _ := e.Execute(context.Background(), code)
				over := time.Since(start) - timeout
				if res.Err == nil || res.Err.Type != "TimeoutError" {
					b.Fatalf("%+v", res.Err)
				}
				total += over
				worst = max(worst, over)
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "overshoot-ms")
			b.ReportMetric(float64(worst.Microseconds())/1000, "worst-overshoot-ms")
		})
	}
}

// BenchmarkMemoryBombs reports the host's peak RSS growth while each memory
// bomb of the escape suite runs against a 256 MiB budget.
func BenchmarkMemoryBombs(b *testing.B) {
	for _, c := range escapes {
		if c.want[0] != "MemoryError" {
			continue
		}
		b.Run(strings.ReplaceAll(c.name, " ", "-"), func(b *testing.B) {
			var worst int64
			for i := 0; i < b.N; i++ {
				e := newTestExecutor(b, Options{Limits: executors.Limits{Timeout: 10 * time.Second}})
				resetPeakRSS()
				before := peakRSS()
				res, _ := e.Execute(context.Background(), c.code)
				if res.Err == nil {
					b.Fatalf("bomb did not fail")
				}
				worst = max(worst, peakRSS()-before)
			}
			b.ReportMetric(float64(worst>>20), "peak-rss-growth-MiB")
		})
	}
}

// median is the median of ds, which it sorts.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
