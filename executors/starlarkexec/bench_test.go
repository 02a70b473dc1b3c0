package starlarkexec

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/internal/gctune"
)

// typicalAction is the action of the kind models write that every
// executor's benchmarks run (runnertest.TypicalAction).
const typicalAction = runnertest.TypicalAction

// execOK executes code and fails the benchmark on any error.
func execOK(b *testing.B, e *Executor, code string) {
	b.Helper()
	res, err := e.Execute(context.Background(), code)
	if err != nil {
		b.Fatalf("Execute: %v", err)
	}
	if res.Err != nil {
		b.Fatalf("Execute: %s: %s", res.Err.Type, res.Err.Message)
	}
}

// versusCPython runs stmt b.N times in e and, interleaved, in CPython
// (once each, alternately), and reports both medians and their ratio:
// median-ns (ours), cpython-median-ns and x-cpython. ns/op is the
// engine's mean (CPython's runs are outside the timer).
func versusCPython(b *testing.B, e *Executor, setup, stmt string, compileEach bool) {
	b.Helper()
	if setup != "" {
		execOK(b, e, setup)
	}
	execOK(b, e, stmt) // warm-up
	py := runnertest.StartCPython(b)
	if py != nil {
		py.Setup(b, setup, stmt, compileEach)
		py.Run(b, 1) // warm-up
	}
	ours := make([]time.Duration, 0, b.N)
	var theirs []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		execOK(b, e, stmt)
		ours = append(ours, time.Since(start))
		if py != nil {
			b.StopTimer()
			w, _ := py.Run(b, 1)
			theirs = append(theirs, w...)
			b.StartTimer()
		}
	}
	b.StopTimer()
	med := float64(median(ours).Nanoseconds())
	b.ReportMetric(med, "median-ns")
	if py != nil {
		pm := float64(median(theirs).Nanoseconds())
		b.ReportMetric(pm, "cpython-median-ns")
		b.ReportMetric(med/pm, "x-cpython")
	}
}

// BenchmarkTypicalAction measures one Execute of a 31-line action (front
// end, compile, run) against CPython's compile()+exec() of the same
// source in one persistent namespace: medians against medians, each run
// timed on its own, the two interleaved in the same run.
func BenchmarkTypicalAction(b *testing.B) {
	versusCPython(b, newTestExecutor(b, Options{}), "", typicalAction, true)
}

// BenchmarkTypicalActionCPU is the CPU time a typical step costs, ours
// against CPython's: the engine's is this process's CPU time (getrusage:
// user and system, every thread, the collector's background work
// included) over the whole run divided by the steps; CPython's is its
// process's CPU time around exec, summed the same way. The two run in
// alternate blocks, so that the collector's work a block leaves behind
// still lands in this process's figure while CPython runs.
//
// It runs under Go's default collector (gogc100) and under star-agent's
// (internal/gctune, which the CLI and serve apply; GOGC and GOMEMLIMIT in
// the environment win there as they do in the CLI), each in runs of 20
// steps (run20: an agent's run at its default MaxSteps, on a new executor
// each, whose start is counted; CPython starts each run in a fresh
// namespace) and in one long session of all the steps on one executor
// (long).
func BenchmarkTypicalActionCPU(b *testing.B) {
	for _, c := range []struct {
		name  string
		apply func()
	}{
		{"gogc100", func() { debug.SetGCPercent(100); debug.SetMemoryLimit(math.MaxInt64) }},
		{"star-agent", func() { gctune.Apply() }},
	} {
		for _, session := range []struct {
			name  string
			steps int
		}{{"run20", 20}, {"long", 0}} {
			b.Run(c.name+"/"+session.name, func(b *testing.B) {
				percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
				defer func() {
					gctune.Stop()
					debug.SetGCPercent(percent)
					debug.SetMemoryLimit(limit)
				}()
				c.apply()
				runtime.GC()
				stepCPU(b, typicalAction, session.steps)
			})
		}
	}
}

// stepCPU reports code's CPU time per step against CPython's (see
// BenchmarkTypicalActionCPU), in sessions of sessionSteps steps, each on
// a new executor, or all on one when sessionSteps is 0.
func stepCPU(b *testing.B, code string, sessionSteps int) {
	newExecutor := func() *Executor {
		e, err := New(Options{})
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	e := newExecutor()
	defer func() { e.Close() }()
	execOK(b, e, code)
	py := runnertest.StartCPython(b)
	if py != nil {
		py.Setup(b, "", code, true)
		py.Run(b, 1)
	}
	block := 16
	if sessionSteps > 0 {
		block = sessionSteps
	}
	var theirs time.Duration
	b.ResetTimer()
	c0 := processCPU()
	for done := 0; done < b.N; {
		n := min(block, b.N-done)
		if sessionSteps > 0 {
			e.Close()
			e = newExecutor()
		}
		for range n {
			execOK(b, e, code)
		}
		done += n
		if py != nil {
			b.StopTimer()
			if sessionSteps > 0 {
				py.Setup(b, "", code, true)
			}
			_, cpu := py.Run(b, n)
			theirs += cpu
			b.StartTimer()
		}
	}
	ours := float64(processCPU()-c0) / float64(b.N)
	b.StopTimer()
	b.ReportMetric(ours, "cpu-ns/step")
	if py != nil {
		pc := float64(theirs) / float64(b.N)
		b.ReportMetric(pc, "cpython-cpu-ns/step")
		b.ReportMetric(ours/pc, "x-cpython")
	}
}

// processCPU is this process's CPU time so far, user and system, all
// threads.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// programs are CPU-bound programs, run by BenchmarkPrograms side by side
// with CPython and by BenchmarkOverhead against go.starlark.net itself
// (so both setup and stmt are Starlark as well as Python). The data of the
// sorts is a fixed permutation, the same in both interpreters.
var programs = []struct{ name, setup, stmt string }{
	{"fib25", "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n", "r = fib(25)"},
	{"loop1M", "def loop():\n    t = 0\n    for i in range(1000000):\n        t += i\n    return t\n", "r = loop()"},
	{"sumsq1M", "def sumsq():\n    t = 0\n    for i in range(1000000):\n        t += i * i\n    return t\n", "r = sumsq()"},
	{"sort100k-int", "xs = [(i * 7919) % 100003 for i in range(100000)]\n", "r = sorted(xs)"},
	{"sort100k-float", "xs = [((i * 7919) % 100003) / 7.0 for i in range(100000)]\n", "r = sorted(xs)"},
	{"sort100k-str", "xs = [str((i * 7919) % 100003) for i in range(100000)]\n", "r = sorted(xs)"},
	{"sort100k-key", "xs = [(i * 7919) % 100003 for i in range(100000)]\n", "r = sorted(xs, key=lambda v: -v)"},
	{"dict100k", "def build():\n    d = {}\n    for i in range(100000):\n        d[i] = i\n    return d\n", "r = build()"},
	{"join100k", "def build():\n    parts = []\n    for i in range(100000):\n        parts.append(str(i))\n    return ','.join(parts)\n", "r = build()"},
}

// BenchmarkPrograms runs CPU-bound programs in the engine, with its limits
// on, side by side with CPython: medians against medians, interleaved.
func BenchmarkPrograms(b *testing.B) {
	for _, p := range programs {
		b.Run(p.name, func(b *testing.B) {
			e := newTestExecutor(b, Options{Limits: executors.Limits{Timeout: time.Minute, MaxOperations: 1 << 62}})
			versusCPython(b, e, p.setup, p.stmt, false)
		})
	}
}

// BenchmarkTimeoutOvershoot reports how long after its deadline a runaway
// execution returns: the median and the worst.
func BenchmarkTimeoutOvershoot(b *testing.B) {
	const timeout = 20 * time.Millisecond
	cases := map[string]string{
		"loop":      "while True:\n    x = 1",
		"sort-huge": "x = list(range(2000000))\nfor i in range(100):\n    x = sorted(x, reverse=(i % 2 == 0))",
	}
	for name, code := range cases {
		b.Run(name, func(b *testing.B) {
			e := newTestExecutor(b, Options{Limits: executors.Limits{Timeout: timeout, MaxOperations: 1 << 62}})
			var over []time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				res, err := e.Execute(context.Background(), code)
				over = append(over, time.Since(start)-timeout)
				if err != nil || res.Err == nil || res.Err.Type != "TimeoutError" {
					b.Fatalf("want a TimeoutError, got %v %+v", err, res.Err)
				}
			}
			b.ReportMetric(ms(median(over)), "overshoot-ms")
			b.ReportMetric(ms(slices.Max(over)), "worst-overshoot-ms")
		})
	}
}

// BenchmarkMemoryBombs reports the peak RSS growth of each memory bomb
// of the escape suite under the default budget (256 MiB), each run in a
// fresh child process (runBomb), so that no earlier run's heap hides the
// growth; a bomb that does not fail as the suite wants fails the
// benchmark.
func BenchmarkMemoryBombs(b *testing.B) {
	for _, c := range escapes {
		if c.want[0] != "MemoryError" {
			continue
		}
		b.Run(strings.ReplaceAll(c.name, " ", "-"), func(b *testing.B) {
			benchBomb(b, c.code, c.want)
		})
	}
}

// benchBomb runs code b.N times, each in a fresh child process at the
// default budget, checks that it ended in one of want, and reports the
// worst peak RSS growth.
func benchBomb(b *testing.B, code string, want []string) {
	var worst int64
	for i := 0; i < b.N; i++ {
		res := runBomb(b, code, executors.DefaultMaxMemory, 30*time.Second, false)
		if !slices.Contains(want, res.ErrType) {
			b.Fatalf("ended in %q (%s), want one of %q", res.ErrType, res.Message, want)
		}
		worst = max(worst, res.Growth)
	}
	b.ReportMetric(float64(worst>>20), "peak-rss-growth-MiB")
}

// median is the median of ds, which it sorts.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
