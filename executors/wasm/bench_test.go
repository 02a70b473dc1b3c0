package wasm

// Benchmarks of the WebAssembly CPython, each side by side with native
// CPython (python3) in the same run where a comparison means something:
// every figure is a median of per-iteration times (never a mean against a
// median), x-cpython is the ratio of the two medians, "cold" is cold on
// every iteration (a fresh process and an empty cache), and every
// iteration checks its result and fails the benchmark on an error.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/tool"
)

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// timed runs f b.N times, timing each run, and returns the median.
func timed(b *testing.B, f func()) time.Duration {
	b.Helper()
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		f()
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	return median(times)
}

// report gives the median and, when native CPython's median is known
// (py > 0), the ratio as x-cpython, which make bench's table reads.
func report(b *testing.B, med, py time.Duration) {
	b.ReportMetric(float64(med.Microseconds())/1000, "median-ms")
	if py > 0 {
		b.ReportMetric(float64(py.Microseconds())/1000, "cpython-ms")
		b.ReportMetric(float64(med)/float64(py), "x-cpython")
	}
}

// interleaved runs ours b.N times, each followed by one run of the
// python3 peer's step (runnertest.CPython, if there is a python3), so that
// both see the same machine, and returns the two medians (CPython's is 0
// without python3).
func interleaved(b *testing.B, peer *runnertest.CPython, ours func()) (med, py time.Duration) {
	b.Helper()
	var us, them []time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		ours()
		us = append(us, time.Since(start))
		if peer != nil {
			ds, _ := peer.Run(b, 1)
			them = append(them, ds...)
		}
	}
	b.StopTimer()
	if len(them) > 0 {
		py = median(them)
	}
	return median(us), py
}

// ok executes code and fails the benchmark unless it succeeded.
func ok(b *testing.B, e executors.Executor, code string) executors.Result {
	b.Helper()
	res := exec1(b, e, code)
	if res.Err != nil {
		b.Fatalf("%s: %s", res.Err.Type, res.Err.Message)
	}
	return res
}

// BenchmarkTypicalStep runs the 31-line action models write
// (runnertest.TypicalAction) in a running sandbox, against native
// CPython's compile() and exec() of the same source.
func BenchmarkTypicalStep(b *testing.B) {
	code := runnertest.TypicalAction
	for _, s := range strategies {
		b.Run(s.name, func(b *testing.B) {
			e := newExec(b, Options{Cancel: s.cancel})
			want := ok(b, e, code).Stdout
			if !strings.HasPrefix(want, "initech: 1 orders") {
				b.Fatalf("stdout %q", want)
			}
			peer := runnertest.StartCPython(b)
			if peer != nil {
				peer.Setup(b, "", code, true) // compiled at every run, as Execute does
			}
			med, py := interleaved(b, peer, func() {
				if res := ok(b, e, code); res.Stdout != want {
					b.Fatalf("stdout %q, want %q", res.Stdout, want)
				}
			})
			report(b, med, py)
		})
	}
}

// BenchmarkRoundTrip measures one trivial execution on a running sandbox,
// against the same runner in native CPython over pipes.
func BenchmarkRoundTrip(b *testing.B) {
	const code = "x += 1\nx"
	var py time.Duration
	if n := startNative(b); n != nil {
		ok(b, n, "x = 0")
		py = timed(b, func() { ok(b, n, code) })
	}
	for _, s := range strategies {
		b.Run(s.name, func(b *testing.B) {
			e := newExec(b, Options{Cancel: s.cancel})
			ok(b, e, "x = 0")
			last := int64(0)
			med := timed(b, func() {
				res := ok(b, e, code)
				v, _ := res.Value.(int64)
				if v != last+1 {
					b.Fatalf("value %#v after %d", res.Value, last)
				}
				last = v
			})
			report(b, med, py)
		})
	}
}

// nativeRunner is the runner in a native python3 process, over pipes.
type nativeRunner struct {
	cmd  *exec.Cmd
	sess *runner.Session
}

func startNative(b *testing.B) *nativeRunner {
	b.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		b.Logf("no python3: no x-cpython")
		return nil
	}
	cmd := exec.Command("python3", "-I", "-S", "-c", runner.Script)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	n := &nativeRunner{cmd: cmd, sess: runner.NewSession(out, in)}
	b.Cleanup(func() { n.Close() })
	ctx := context.Background()
	if _, err := n.sess.Ready(ctx); err != nil {
		b.Fatal(err)
	}
	if err := n.sess.Configure(ctx, runner.Config{Imports: allImports}); err != nil {
		b.Fatal(err)
	}
	return n
}

func (n *nativeRunner) Execute(ctx context.Context, code string) (executors.Result, error) {
	return n.sess.Exec(ctx, code)
}
func (n *nativeRunner) SetTools(context.Context, []tool.Tool) error { return nil }
func (n *nativeRunner) SetVariables(context.Context, map[string]any) error {
	return nil
}
func (n *nativeRunner) Close() error {
	n.cmd.Process.Kill()
	n.cmd.Wait()
	return nil
}

// BenchmarkStart measures a new sandbox in this process up to the result
// of its first execution, the compiled code cached on disk (and, for
// close, in the process), against a native python3 runner started the
// same way.
func BenchmarkStart(b *testing.B) {
	var py time.Duration
	if _, err := exec.LookPath("python3"); err == nil {
		py = timed(b, func() {
			n := startNative(b)
			if res := ok(b, n, "x = 1\nx"); res.Value != int64(1) {
				b.Fatal(res)
			}
			n.Close()
		})
	}
	for _, s := range strategies {
		b.Run(s.name, func(b *testing.B) {
			ok(b, newExec(b, Options{Cancel: s.cancel}), "1") // warm the cache
			var rss int64
			med := timed(b, func() {
				e, err := New(Options{Cancel: s.cancel})
				if err != nil {
					b.Fatal(err)
				}
				if res := ok(b, e, "x = 1\nx"); res.Value != int64(1) {
					b.Fatal(res)
				}
				rss = childRSS(e)
				e.Close()
			})
			report(b, med, py)
			if rss > 0 {
				b.ReportMetric(float64(rss)/(1<<20), "idle-MiB")
			}
		})
	}
}

// firstResultEnv makes the test binary a one-shot program (see TestMain):
// it runs firstResultCode in a wasm sandbox, prints the value and exits,
// as `star-agent exec` does.
const firstResultEnv = "STAR_AGENT_WASM_BENCH_FIRST_RESULT"

const firstResultCode = "x = 6 * 7\nx"

// firstResult is the main function of that program.
func firstResult() int {
	e, err := New(Options{Imports: allImports, Progress: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer e.Close()
	res, err := e.Execute(context.Background(), firstResultCode)
	if err != nil || res.Err != nil {
		fmt.Fprintln(os.Stderr, err, res.Err)
		return 1
	}
	fmt.Println(res.Repr)
	return 0
}

// BenchmarkFirstResult measures a whole process that starts, runs one
// small piece of code in a wasm sandbox and exits, as `star-agent exec`
// does: warm (compiled code in the cache) and cold (an empty cache on
// every iteration), with HOME set and without it (the cache then lives
// under TMPDIR). Native CPython's figure is `python3 -c` of the same code.
func BenchmarkFirstResult(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	// CPU time (of the process and its sandbox child) is reported too:
	// on a loaded machine it varies far less than wall time.
	var cpus []time.Duration
	cpu := func(f func()) {
		c := childrenCPU()
		f()
		cpus = append(cpus, childrenCPU()-c)
	}
	var py, pyCPU time.Duration
	// The interpreter itself, not a version manager's shim in front of it.
	if real, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output(); err == nil {
		python := strings.TrimSpace(string(real))
		cpus = nil
		py = timed(b, func() {
			cpu(func() {
				out, err := exec.Command(python, "-c", strings.Replace(firstResultCode, "\nx", "\nprint(x)", 1)).Output()
				if err != nil || strings.TrimSpace(string(out)) != "42" {
					b.Fatalf("python3: %q %v", out, err)
				}
			})
		})
		pyCPU = median(cpus)
	}
	run := func(b *testing.B, env []string) {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(env, firstResultEnv+"=1", "PATH="+os.Getenv("PATH"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || strings.TrimSpace(string(out)) != "42" {
			b.Fatalf("first result: %q, %v: %s", out, err, stderr.String())
		}
	}
	for _, c := range []struct {
		name string
		home bool
		cold bool
	}{{"warm", true, false}, {"warm-nohome", false, false}, {"cold", true, true}, {"cold-nohome", false, true}} {
		b.Run(c.name, func(b *testing.B) {
			env := func(dir string) []string {
				if c.home {
					return []string{"HOME=" + dir, "TMPDIR=" + filepath.Join(dir, "tmp")}
				}
				return []string{"TMPDIR=" + dir}
			}
			dir := b.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o700); err != nil {
				b.Fatal(err)
			}
			if !c.cold {
				run(b, env(dir))
			}
			cpus = nil
			med := timed(b, func() {
				if c.cold {
					dir = b.TempDir()
					os.Mkdir(filepath.Join(dir, "tmp"), 0o700)
				}
				cpu(func() { run(b, env(dir)) })
			})
			report(b, med, py)
			if c := median(cpus); c > 0 {
				b.ReportMetric(float64(c.Microseconds())/1000, "cpu-ms")
				if pyCPU > 0 {
					b.ReportMetric(float64(c)/float64(pyCPU), "cpu-x-cpython")
				}
			}
		})
	}
}

// BenchmarkCompile measures compiling python.wasm without a cache, and
// loading it from a warm disk cache, in this process.
func BenchmarkCompile(b *testing.B) {
	ctx := context.Background()
	b.Run("nocache", func(b *testing.B) {
		report(b, timed(b, func() {
			e, err := newEngine(ctx, engineKey{pages: 4096})
			if err != nil {
				b.Fatal(err)
			}
			e.rt.Close(ctx)
		}), 0)
	})
	b.Run("cache", func(b *testing.B) {
		dir := b.TempDir()
		e, err := newEngine(ctx, engineKey{cacheDir: dir, pages: 4096})
		if err != nil {
			b.Fatal(err)
		}
		e.rt.Close(ctx)
		report(b, timed(b, func() {
			e, err := newEngine(ctx, engineKey{cacheDir: dir, pages: 4096})
			if err != nil {
				b.Fatal(err)
			}
			e.rt.Close(ctx)
		}), 0)
	})
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
			e, err := New(Options{Imports: allImports})
			if err != nil {
				b.Fatal(err)
			}
			running = append(running, e)
			ok(b, e, "import json, re, math\nx = {'a': [1, 2, 3]}")
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

var cpuCases = []struct{ name, setup, code, want string }{
	{"fib25", "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)", "r = fib(25)", "75025"},
	{"loop1M", "", "t = 0\nfor i in range(1000000):\n    t += i\nr = t", "499999500000"},
}

// BenchmarkCPU compares CPU-bound code under each cancellation strategy
// with native CPython running the same code the same way (exec in a
// namespace that persists, module-level names), run for run interleaved.
func BenchmarkCPU(b *testing.B) {
	for _, c := range cpuCases {
		b.Run(c.name, func(b *testing.B) {
			for _, s := range strategies {
				b.Run(s.name, func(b *testing.B) {
					e := newExec(b, Options{Cancel: s.cancel, Limits: executors.Limits{Timeout: time.Minute}})
					if c.setup != "" {
						ok(b, e, c.setup)
					}
					ok(b, e, c.code)
					peer := runnertest.StartCPython(b)
					if peer != nil {
						peer.Setup(b, c.setup, c.code, false)
					}
					med, py := interleaved(b, peer, func() {
						ok(b, e, c.code)
					})
					if res := ok(b, e, "r"); res.Repr != c.want {
						b.Fatalf("r = %s, want %s", res.Repr, c.want)
					}
					report(b, med, py)
					if rss := childRSS(e); rss > 0 {
						b.ReportMetric(float64(rss)/(1<<20), "peak-MiB")
					}
				})
			}
		})
	}
}

// BenchmarkBusyRSS reports the peak resident memory of a fresh child
// sandbox after the code used about 100 MB.
func BenchmarkBusyRSS(b *testing.B) {
	for b.Loop() {
		e, err := New(Options{})
		if err != nil {
			b.Fatal(err)
		}
		ok(b, e, "x = [str(i) * 10 for i in range(1000000)]\nn = len(x)\ndel x")
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
			var overs []time.Duration
			for b.Loop() {
				ok(b, e, "1") // (re)start outside the measurement
				start := time.Now()
				res := exec1(b, e, "while True:\n    pass")
				overs = append(overs, time.Since(start)-limit)
				if res.Err == nil || res.Err.Type != "TimeoutError" {
					b.Fatal(res.Err)
				}
			}
			b.ReportMetric(float64(median(overs).Microseconds())/1000, "overshoot-ms")
		})
	}
}
