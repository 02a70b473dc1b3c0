package docker_test

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/docker"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
)

// The benchmarks run on the test image (the host's python3, see
// testImage); BENCH_IMAGE=star-agent/python:latest measures the default
// image instead:
//
//	go test -run '^$' -bench . -benchtime 20x ./executors/docker/

func benchImage(b *testing.B) string {
	if img := getenv("BENCH_IMAGE"); img != "" {
		return img
	}
	return testImage(b)
}

func exec1(b *testing.B, e executors.Executor, code string) executors.Result {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.Execute(ctx, code)
	if err != nil {
		b.Fatal(err)
	}
	if res.Err != nil {
		b.Fatal(res.Err)
	}
	return res
}

// benchRuntimes runs f as a sub-benchmark per runtime, "runtime=runc"
// (the engine's default) and "runtime=runsc" (gVisor) where the engine
// has it registered (make gvisor).
func benchRuntimes(b *testing.B, f func(b *testing.B, runtime string)) {
	for _, rt := range runtimes(b) {
		b.Run("runtime="+rt, func(b *testing.B) {
			if rt == "runc" {
				rt = ""
			}
			f(b, rt)
		})
	}
}

// BenchmarkStart measures a new executor up to the result of its first
// execution (create, attach, start, handshake, configure, run), and
// reports Close (the container's removal) apart, under each runtime.
func BenchmarkStart(b *testing.B) {
	benchRuntimes(b, func(b *testing.B, runtime string) {
		img := benchImage(b)
		warm := newExec(b, docker.Options{Image: img, Runtime: runtime})
		exec1(b, warm, "1")
		var closing time.Duration
		for b.Loop() {
			e, err := docker.New(docker.Options{Image: img, Runtime: runtime, Labels: map[string]string{runLabel: runID}})
			if err != nil {
				b.Fatal(err)
			}
			if res := exec1(b, e, "x = 1\nx"); res.Value != int64(1) {
				b.Fatal(res)
			}
			b.StopTimer()
			t0 := time.Now()
			if err := e.Close(); err != nil {
				b.Fatal(err)
			}
			closing += time.Since(t0)
			b.StartTimer()
		}
		b.ReportMetric(float64(closing.Milliseconds())/float64(b.N), "close-ms")
	})
}

// BenchmarkStartPandas is BenchmarkStart on the default image up to the
// result of a first action that imports numpy and pandas.
func BenchmarkStartPandas(b *testing.B) {
	benchRuntimes(b, func(b *testing.B, runtime string) {
		img := dataImage(b)
		for b.Loop() {
			e, err := docker.New(docker.Options{Image: img, Runtime: runtime, Labels: map[string]string{runLabel: runID}, Imports: executors.ImportPolicy{Authorized: []string{"*"}}})
			if err != nil {
				b.Fatal(err)
			}
			exec1(b, e, "import numpy as np, pandas as pd\npd.DataFrame({'x': np.arange(3)})['x'].sum()")
			b.StopTimer()
			if err := e.Close(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
}

// BenchmarkRoundTrip measures one trivial execution in a running container.
func BenchmarkRoundTrip(b *testing.B) {
	e := newExec(b, docker.Options{Image: benchImage(b)})
	exec1(b, e, "x = 0")
	for b.Loop() {
		exec1(b, e, "x += 1")
	}
}

// BenchmarkTypicalAction runs the 31-line action of the local engine's
// benchmarks (data in literals, a loop, a helper, formatting), under
// each runtime.
func BenchmarkTypicalAction(b *testing.B) {
	benchRuntimes(b, func(b *testing.B, runtime string) {
		e := newExec(b, docker.Options{Image: benchImage(b), Runtime: runtime})
		exec1(b, e, runnertest.TypicalAction)
		for b.Loop() {
			exec1(b, e, runnertest.TypicalAction)
		}
	})
}

// BenchmarkTimeoutOvershoot measures how long after its deadline an
// infinite loop's Execute returns; the container's removal runs in the
// background and the restart happens on the next Execute, not counted.
func BenchmarkTimeoutOvershoot(b *testing.B) {
	const limit = 200 * time.Millisecond
	e := newExec(b, docker.Options{Image: benchImage(b), Limits: executors.Limits{Timeout: limit}})
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		exec1(b, e, "1")
		b.StartTimer()
		start := time.Now()
		ctx := context.Background()
		res, err := e.Execute(ctx, "while True:\n    pass")
		total += time.Since(start) - limit
		if err != nil || res.Err == nil || res.Err.Type != "TimeoutError" {
			b.Fatal(err, res.Err)
		}
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "overshoot-ms")
}

// BenchmarkMemoryPerExecutor starts idle executors side by side and
// reports what each holds on the host: star-agent's own heap, and the
// container's memory as its cgroup counts it (the interpreter, the runner
// and its imports).
func BenchmarkMemoryPerExecutor(b *testing.B) {
	const n = 8
	img := benchImage(b)
	cli := engine(b)
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var running []*docker.Executor
		for i := 0; i < n; i++ {
			e, err := docker.New(docker.Options{Image: img, Labels: map[string]string{runLabel: runID}})
			if err != nil {
				b.Fatal(err)
			}
			running = append(running, e)
			exec1(b, e, "import json, re, math\nx = {'a': [1, 2, 3]}")
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		var ctrMem, shimMem uint64
		for _, e := range running {
			// The engine keeps a containerd shim per container: the
			// parent of the container's first process.
			if info, err := cli.ContainerInspect(context.Background(), e.ContainerID()); err == nil && info.State != nil {
				if ppid := procField(info.State.Pid, "PPid:"); ppid > 0 && strings.HasPrefix(procName(int(ppid)), "containerd-shim") {
					shimMem += procField(int(ppid), "VmRSS:") << 10
				}
			}
			s, err := cli.ContainerStatsOneShot(context.Background(), e.ContainerID())
			if err != nil {
				b.Fatal(err)
			}
			var st struct {
				MemoryStats struct {
					Usage uint64            `json:"usage"`
					Stats map[string]uint64 `json:"stats"`
				} `json:"memory_stats"`
			}
			json.NewDecoder(s.Body).Decode(&st)
			s.Body.Close()
			// RSS as cgroup v1 counts it; usage includes the page cache
			// of the shared image files.
			if rss, ok := st.MemoryStats.Stats["total_rss"]; ok {
				ctrMem += rss
			} else {
				ctrMem += st.MemoryStats.Usage
			}
		}
		for _, e := range running {
			if err := e.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/n/1024, "host-heap-KiB/executor")
		b.ReportMetric(float64(ctrMem)/n/(1<<20), "container-RSS-MiB/executor")
		b.ReportMetric(float64(shimMem)/n/(1<<20), "shim-RSS-MiB/executor")
		b.ReportMetric(float64(runtime.NumGoroutine()), "goroutines-after-close")
	}
}

func getenv(k string) string { return os.Getenv(k) }

// procField reads a number field of /proc/PID/status (kB for sizes), or 0.
func procField(pid int, field string) uint64 {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			n, _ := strconv.ParseUint(f[1], 10, 64)
			return n
		}
	}
	return 0
}

func procName(pid int) string {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(data))
}

// BenchmarkFirstResultPool is BenchmarkStart with a pool of one started
// container (docker.Pool), refilled between iterations outside the
// timer: the first result of an executor whose container was started
// ahead, as serve --docker-pool gives a run.
func BenchmarkFirstResultPool(b *testing.B) {
	benchRuntimes(b, func(b *testing.B, runtime string) {
		opts := docker.Options{Image: benchImage(b), Runtime: runtime, Labels: map[string]string{runLabel: runID}}
		p, err := docker.NewPool(docker.PoolOptions{Size: 1, Options: opts})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		opts.Pool = p
		for b.Loop() {
			b.StopTimer()
			for p.Stats().Idle < 1 {
				time.Sleep(5 * time.Millisecond)
			}
			b.StartTimer()
			e, err := docker.New(opts)
			if err != nil {
				b.Fatal(err)
			}
			if res := exec1(b, e, "x = 1\nx"); res.Value != int64(1) {
				b.Fatal(res)
			}
			b.StopTimer()
			if err := e.Close(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		if s := p.Stats(); s.Misses != 0 {
			b.Fatalf("pool stats %+v: every start should be a hit", s)
		}
	})
}
