package wasm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
)

// BenchmarkCompile measures compiling python.wasm without a cache, and
// loading it from a warm disk cache.
func BenchmarkCompile(b *testing.B) {
	ctx := context.Background()
	b.Run("nocache", func(b *testing.B) {
		for b.Loop() {
			e, err := newEngine(ctx, engineKey{pages: 4096})
			if err != nil {
				b.Fatal(err)
			}
			e.rt.Close(ctx)
		}
	})
	b.Run("cache", func(b *testing.B) {
		dir := b.TempDir()
		e, err := newEngine(ctx, engineKey{cacheDir: dir, pages: 4096})
		if err != nil {
			b.Fatal(err)
		}
		e.rt.Close(ctx)
		for b.Loop() {
			e, err := newEngine(ctx, engineKey{cacheDir: dir, pages: 4096})
			if err != nil {
				b.Fatal(err)
			}
			e.rt.Close(ctx)
		}
	})
}

// BenchmarkStart measures a new sandbox up to the result of its first
// execution (compiled code cached on disk / in the process), and reports
// the child's resident memory where there is one.
func BenchmarkStart(b *testing.B) {
	for _, s := range strategies {
		b.Run(s.name, func(b *testing.B) {
			warm := newExec(b, Options{Cancel: s.cancel})
			exec1(b, warm, "1")
			var rss int64
			for b.Loop() {
				e, err := New(Options{Cancel: s.cancel})
				if err != nil {
					b.Fatal(err)
				}
				if res := exec1(b, e, "x = 1\nx"); res.Value != int64(1) {
					b.Fatal(res)
				}
				rss = childRSS(e)
				e.Close()
			}
			if rss > 0 {
				b.ReportMetric(float64(rss)/(1<<20), "idle-MiB")
			}
		})
	}
}

// BenchmarkColdStart is BenchmarkStart with no compilation cache at all:
// every sandbox compiles python.wasm to machine code first.
func BenchmarkColdStart(b *testing.B) {
	for _, s := range strategies {
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				e, err := New(Options{Cancel: s.cancel, NoCache: true})
				if err != nil {
					b.Fatal(err)
				}
				if res := exec1(b, e, "x = 1\nx"); res.Value != int64(1) {
					b.Fatal(res)
				}
				e.Close()
			}
		})
	}
}

// BenchmarkSandboxesPer4GiB starts idle child-process sandboxes side by
// side and reports the resident memory each holds after a first
// execution, and how many would fit in 4 GiB.
func BenchmarkSandboxesPer4GiB(b *testing.B) {
	const n = 8
	for b.Loop() {
		var total int64
		var running []*Executor
		for i := 0; i < n; i++ {
			e, err := New(Options{})
			if err != nil {
				b.Fatal(err)
			}
			running = append(running, e)
			exec1(b, e, "import json, re, math\nx = {'a': [1, 2, 3]}")
		}
		for _, e := range running {
			total += childRSSField(e, "VmRSS:")
			e.Close()
		}
		per := float64(total) / n
		b.ReportMetric(per/(1<<20), "MiB/sandbox")
		b.ReportMetric(float64(4<<30)/per, "sandboxes/4GiB")
	}
}

// BenchmarkRoundTrip measures one trivial execution on a running sandbox.
func BenchmarkRoundTrip(b *testing.B) {
	for _, s := range strategies {
		b.Run(s.name, func(b *testing.B) {
			e := newExec(b, Options{Cancel: s.cancel})
			exec1(b, e, "x = 0")
			for b.Loop() {
				if res := exec1(b, e, "x += 1"); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}

var cpuCases = []struct{ name, setup, code string }{
	{"fib25", "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)", "fib(25)"},
	{"loop1M", "", "t = 0\nfor i in range(1000000):\n    t += i"},
}

// BenchmarkCPU compares CPU-bound code under each cancellation strategy
// with native CPython (python3, run for the same code in one process).
func BenchmarkCPU(b *testing.B) {
	for _, c := range cpuCases {
		b.Run(c.name+"/native", func(b *testing.B) {
			py, err := exec.LookPath("python3")
			if err != nil {
				b.Skip("no python3")
			}
			prog := fmt.Sprintf("import time\n%s\nn = %d\nt0 = time.perf_counter()\nfor _ in range(n):\n    exec(%q)\nprint(int((time.perf_counter() - t0) / n * 1e9))", c.setup, max(b.N, 1), c.code)
			out, err := exec.Command(py, "-c", prog).Output()
			if err != nil {
				b.Fatal(err)
			}
			ns, _ := strconv.Atoi(strings.TrimSpace(string(out)))
			b.ReportMetric(float64(ns), "py-ns/op")
		})
		for _, s := range strategies {
			b.Run(c.name+"/"+s.name, func(b *testing.B) {
				e := newExec(b, Options{Cancel: s.cancel})
				if c.setup != "" {
					exec1(b, e, c.setup)
				}
				exec1(b, e, c.code)
				for b.Loop() {
					if res := exec1(b, e, c.code); res.Err != nil {
						b.Fatal(res.Err)
					}
				}
				if rss := childRSS(e); rss > 0 {
					b.ReportMetric(float64(rss)/(1<<20), "peak-MiB")
				}
			})
		}
	}
}

// BenchmarkBusyRSS reports the peak resident memory of a child sandbox
// after the code used about 100 MB.
func BenchmarkBusyRSS(b *testing.B) {
	for b.Loop() {
		e, err := New(Options{})
		if err != nil {
			b.Fatal(err)
		}
		exec1(b, e, "x = [str(i) * 10 for i in range(1000000)]\ndel x")
		b.ReportMetric(float64(childRSS(e))/(1<<20), "peak-MiB")
		e.Close()
	}
}

// childRSS is the peak resident set of a child sandbox (VmHWM), or 0.
func childRSS(e *Executor) int64 { return childRSSField(e, "VmHWM:") }

// childRSSField reads a memory field of /proc/PID/status of a child
// sandbox, or 0.
func childRSSField(e *Executor, field string) int64 {
	c, ok := e.Current().(*childProcess)
	if !ok {
		return 0
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == field {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkTimeoutOvershoot measures how long after its deadline an
// infinite loop's Execute returns (including killing the sandbox); the
// restart happens on the next Execute and is not counted.
func BenchmarkTimeoutOvershoot(b *testing.B) {
	const limit = 100 * time.Millisecond
	for _, s := range strategies {
		b.Run(s.name, func(b *testing.B) {
			e := newExec(b, Options{Cancel: s.cancel, Limits: executors.Limits{Timeout: limit}})
			var total time.Duration
			for b.Loop() {
				exec1(b, e, "1") // (re)start outside the measurement
				start := time.Now()
				res := exec1(b, e, "while True:\n    pass")
				total += time.Since(start) - limit
				if res.Err == nil || res.Err.Type != "TimeoutError" {
					b.Fatal(res.Err)
				}
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "overshoot-ms")
		})
	}
}
