package starlarkexec

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
)

// BenchmarkIsolation measures the per-step cost of running the engine in a
// child process: the same action in an in-process executor and in an
// isolated one, interleaved so that both see the same machine, compared
// median against median.
func BenchmarkIsolation(b *testing.B) {
	actions := map[string]string{"typical": typicalAction, "trivial": "x = 1"}
	for name, code := range actions {
		b.Run(name, func(b *testing.B) {
			in := newTestExecutor(b, Options{})
			iso := newIsolatedTest(b, Options{}, nil)
			ctx := context.Background()
			for _, e := range []*Executor{in, iso} {
				if res, err := e.Execute(ctx, code); err != nil || res.Err != nil {
					b.Fatal(err, res.Err)
				}
			}
			tin := make([]time.Duration, 0, b.N)
			tiso := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				execOK(b, in, code)
				mid := time.Now()
				execOK(b, iso, code)
				tin = append(tin, mid.Sub(start))
				tiso = append(tiso, time.Since(mid))
			}
			b.StopTimer()
			mi, mc := median(tin), median(tiso)
			b.ReportMetric(float64(mi.Nanoseconds()), "inprocess-median-ns")
			b.ReportMetric(float64(mc.Nanoseconds()), "isolated-median-ns")
			b.ReportMetric(float64((mc - mi).Nanoseconds()), "overhead-ns")
		})
	}
}

// BenchmarkIsolatedRecovery reports, for a child that cannot answer at all
// (stopped with SIGSTOP), how long after the deadline Execute returns and
// how long the next execution takes (it starts a fresh child).
func BenchmarkIsolatedRecovery(b *testing.B) {
	// Long enough that a fresh child's first step never reaches it on a
	// loaded machine.
	const timeout = time.Second
	e := newIsolatedTest(b, Options{Limits: executors.Limits{Timeout: timeout}}, nil)
	ctx := context.Background()
	execOK(b, e, "x = 1")
	var worstOver, worstNext time.Duration
	var next []time.Duration
	for i := 0; i < b.N; i++ {
		syscall.Kill(e.ChildPID(), syscall.SIGSTOP)
		start := time.Now()
		res, err := e.Execute(ctx, "x = 1")
		over := time.Since(start) - timeout
		if err != nil || res.Err == nil || res.Err.Type != "TimeoutError" {
			b.Fatalf("want a TimeoutError, got %v %+v", err, res.Err)
		}
		start = time.Now()
		execOK(b, e, "x = 1")
		d := time.Since(start)
		next = append(next, d)
		worstOver, worstNext = max(worstOver, over), max(worstNext, d)
	}
	b.ReportMetric(float64(worstOver.Microseconds())/1000, "worst-overshoot-ms")
	b.ReportMetric(float64(median(next).Microseconds())/1000, "next-step-median-ms")
	b.ReportMetric(float64(worstNext.Microseconds())/1000, "next-step-worst-ms")
}

// BenchmarkIsolatedMemoryBombs reports the child's peak RSS (VmHWM) after
// each memory bomb of the escape suite, under a 256 MiB budget, each in a
// fresh child (a new executor per iteration).
func BenchmarkIsolatedMemoryBombs(b *testing.B) {
	for _, c := range escapes {
		if c.want[0] != "MemoryError" {
			continue
		}
		b.Run(strings.ReplaceAll(c.name, " ", "-"), func(b *testing.B) {
			var worst int64
			for i := 0; i < b.N; i++ {
				e := newIsolatedTest(b, Options{Limits: executors.Limits{Timeout: 10 * time.Second}}, nil)
				execOK(b, e, "1")
				pid := e.ChildPID()
				res, err := e.Execute(context.Background(), c.code)
				if err != nil || res.Err == nil || !slices.Contains(c.want, res.Err.Type) {
					b.Fatalf("want one of %q, got %v %+v", c.want, err, res.Err)
				}
				if e.ChildPID() == pid {
					worst = max(worst, childPeakRSS(pid))
				}
				e.Close()
			}
			b.ReportMetric(float64(worst>>20), "child-peak-rss-MiB")
		})
	}
}

// childPeakRSS returns a process's peak resident set size in bytes.
func childPeakRSS(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
