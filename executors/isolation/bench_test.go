package isolation

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/executors/starlarkexec"
)

// BenchmarkIsolation measures the per-step cost of running the engine in a
// child process: the same action in an in-process executor and in an
// isolated one, interleaved so that both see the same machine, compared
// median against median.
func BenchmarkIsolation(b *testing.B) {
	actions := map[string]string{"typical": runnertest.TypicalAction, "trivial": "x = 1"}
	for name, code := range actions {
		b.Run(name, func(b *testing.B) {
			in, err := starlarkexec.New(starlarkexec.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer in.Close()
			iso := newIsolatedTest(b, Options{}, nil)
			ctx := context.Background()
			for _, e := range []executors.Executor{in, iso} {
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

// memoryBombs are the memory bombs of starlarkexec's escape suite
// (escape_test.go there): attempts that must end in one of the exception
// types listed.
var memoryBombs = []struct {
	name, code string
	want       []string
}{
	{"string repeat", "s = 'a' * (10 ** 10)", []string{"MemoryError"}},
	{"string repeat under starlark's cap", "s = 'ab' * (1 << 29)", []string{"MemoryError"}},
	{"list repeat", "x = [0] * (1 << 29)", []string{"MemoryError"}},
	{"tuple repeat", "x = (1, 2) * (1 << 28)", []string{"MemoryError"}},
	{"list doubling", "x = [1]\nfor i in range(64):\n    x = x + x", []string{"MemoryError"}},
	{"string doubling", "s = 'ab'\nwhile True:\n    s = s + s", []string{"MemoryError"}},
	{"augmented string doubling", "s = 'ab'\nwhile True:\n    s += s", []string{"MemoryError"}},
	{"in-place list doubling", "x = [1]\nwhile True:\n    x += x", []string{"MemoryError"}},
	{"spread doubling", "x = [1]\nwhile True:\n    x = [*x, *x]", []string{"MemoryError", "StepLimitError"}},
	{"f-string doubling", "s = 'ab'\nwhile True:\n    s = f'{s}{s}'", []string{"MemoryError"}},
	{"doubling in a generator", "def g():\n    s = 'ab'\n    while True:\n        s = s + s\n        yield 1\nfor _ in g():\n    pass", []string{"MemoryError"}},
	{"doubling in a method", "class C:\n    def __add__(self, o):\n        s = 'ab'\n        while True:\n            s = s + s\nC() + C()", []string{"MemoryError"}},
	{"big int power", "x = 2 ** (10 ** 9)", []string{"MemoryError", "OverflowError"}},
	{"big int squaring", "x = 10\nfor i in range(64):\n    x = x * x", []string{"MemoryError", "OverflowError"}},
	{"range materialised", "x = list(range(10 ** 9))", []string{"MemoryError"}},
	{"comprehension growth", "x = [str(i) * 100 for i in range(10 ** 8)]", []string{"MemoryError", "StepLimitError"}},
	{"append growth", "x = []\nwhile True:\n    x.append('y' * 1000)", []string{"MemoryError"}},
	{"dict growth", "d = {}\ni = 0\nwhile True:\n    d[i] = 'v' * 100\n    i += 1", []string{"MemoryError", "StepLimitError"}},
	{"join amplification", "sep = 'x' * (1 << 20)\ny = sep.join([''] * 100000)", []string{"MemoryError"}},
	{"replace amplification", "s = 'a' * 100000\ny = s.replace('a', 'b' * 100000)", []string{"MemoryError"}},
	{"format amplification", "s = '{:>2000000000}'.format(1)", []string{"MemoryError", "ValueError"}},
	{"f-string width", "w = 2000000000\ns = f'{1:>{w}}'", []string{"MemoryError", "ValueError"}},
	{"__format__ returning its argument", "class C:\n    def __format__(self, spec):\n        return spec\nf'{C():{\"x\" * 10**10}}'", []string{"MemoryError"}},
	{"__index__ huge for repeat", "class C:\n    def __index__(self):\n        return 10 ** 12\nx = 'ab' * C()", []string{"MemoryError", "OverflowError", "TypeError"}},
	{"__index__ huge for range", "class C:\n    def __index__(self):\n        return 10 ** 30\nx = list(range(C()))", []string{"MemoryError", "OverflowError", "TypeError"}},
	{"__len__ huge for a buffer", "class C:\n    def __len__(self):\n        return 1 << 60\n    def __iter__(self):\n        return iter([1])\nx = list(C()) * (1 << 40)", []string{"MemoryError", "OverflowError"}},
	{"__iter__ that never ends, collected", "class C:\n    def __iter__(self):\n        return self\n    def __next__(self):\n        return 'x' * 1000\nx = list(C())", []string{"MemoryError", "StepLimitError", "TimeoutError"}},
	{"__iadd__ doubling", "class C:\n    def __init__(self):\n        self.s = 'ab'\n    def __iadd__(self, o):\n        self.s = self.s + self.s\n        return self\nc = C()\nwhile True:\n    c += 1", []string{"MemoryError"}},
	{"__isub__ doubling a list", "class C:\n    def __init__(self):\n        self.s = [1]\n    def __isub__(self, o):\n        self.s = self.s * 2\n        return self\nc = C()\nwhile True:\n    c -= 1", []string{"MemoryError"}},
	{"__pow__ huge", "class C:\n    def __pow__(self, o):\n        return 10 ** o\nx = C() ** (10 ** 9)", []string{"MemoryError", "OverflowError"}},
	{"__matmul__ growth", "class C:\n    def __matmul__(self, o):\n        return 'x' * o\nx = C() @ (10 ** 11)", []string{"MemoryError"}},
}

// BenchmarkIsolatedMemoryBombs reports the child's peak RSS (VmHWM) after
// each memory bomb, under a 256 MiB budget, each in a fresh child (a new
// executor per iteration).
func BenchmarkIsolatedMemoryBombs(b *testing.B) {
	for _, c := range memoryBombs {
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

// execOK executes code and fails the benchmark on any error.
func execOK(b *testing.B, e executors.Executor, code string) {
	b.Helper()
	res, err := e.Execute(context.Background(), code)
	if err != nil {
		b.Fatalf("Execute: %v", err)
	}
	if res.Err != nil {
		b.Fatalf("Execute: %s: %s", res.Err.Type, res.Err.Message)
	}
}

// median is the median of ds, which it sorts.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// BenchmarkThroughput is the throughput of two executors stepping at once
// on this machine (two cores: one each), each running the typical step in
// a loop, against two CPython processes each running its compile()+exec()
// of the same source in a loop (runnertest.CPython): rounds of the two
// alternate, each round timed whole, and the medians of the rounds'
// throughputs compared. steps/s is ours, cpython-steps/s CPython's and
// x-cpython ours over CPython's (higher is better; issue #30's target is
// 0.9 and above). The isolated case is the CLI's default (--isolation
// process); inprocess is the same engine in this process. It means what
// it says only on an otherwise idle machine: when other work competes
// for the cores, the isolated pair (two hosts and two children) gets a
// larger share of them than two CPython processes, and the ratio flatters
// it; BenchmarkIsolatedCPU's CPU time per step is the figure that load
// does not skew (two saturated cores give throughput in inverse ratio to
// it).
func BenchmarkThroughput(b *testing.B) {
	const perRound = 40 // steps of each executor in one round
	code := runnertest.TypicalAction
	for _, mode := range []string{"isolated", "inprocess"} {
		b.Run(mode, func(b *testing.B) {
			var es [2]executors.Executor
			for i := range es {
				if mode == "isolated" {
					es[i] = newIsolatedTest(b, Options{}, nil)
				} else {
					e, err := starlarkexec.New(starlarkexec.Options{})
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() { e.Close() })
					es[i] = e
				}
				execOK(b, es[i], code)
			}
			var pys [2]*runnertest.CPython
			for i := range pys {
				if pys[i] = runnertest.StartCPython(b); pys[i] == nil {
					break
				}
				pys[i].Setup(b, "", code, true)
				pys[i].Run(b, 1)
			}
			both := func(f func(i int)) time.Duration {
				start := time.Now()
				var wg sync.WaitGroup
				for i := range 2 {
					wg.Add(1)
					go func() { defer wg.Done(); f(i) }()
				}
				wg.Wait()
				return time.Since(start)
			}
			rate := func(d time.Duration) float64 { return 2 * perRound / d.Seconds() }
			var ours, theirs []float64
			errs := make(chan error, 2)
			b.ResetTimer()
			for range b.N {
				ours = append(ours, rate(both(func(i int) {
					for range perRound {
						if res, err := es[i].Execute(context.Background(), code); err != nil || res.Err != nil {
							errs <- fmt.Errorf("%v %v", err, res.Err)
							return
						}
					}
				})))
				select {
				case err := <-errs:
					b.Fatal(err)
				default:
				}
				if pys[1] != nil {
					b.StopTimer()
					theirs = append(theirs, rate(both(func(i int) { pys[i].Run(b, perRound) })))
					b.StartTimer()
				}
			}
			b.StopTimer()
			slices.Sort(ours)
			med := ours[len(ours)/2]
			b.ReportMetric(med, "steps/s")
			if len(theirs) > 0 {
				slices.Sort(theirs)
				pm := theirs[len(theirs)/2]
				b.ReportMetric(pm, "cpython-steps/s")
				b.ReportMetric(med/pm, "x-cpython")
			}
		})
	}
}

// BenchmarkIsolatedCPU is the CPU time a typical step costs under
// isolation, both processes counted (the host's, this process's getrusage,
// and the child's, from /proc), against CPython's compile()+exec() of the
// same source (its process's CPU time around exec), in alternate blocks
// of steps on one executor, as starlarkexec's BenchmarkTypicalActionCPU
// measures the engine in process. cpu-ns/step is ours (host-cpu-ns/step
// and child-cpu-ns/step its parts), x-cpython ours over CPython's. CPU
// time rather than wall time: it is what a loaded machine does not skew.
func BenchmarkIsolatedCPU(b *testing.B) {
	for name, code := range map[string]string{"typical": runnertest.TypicalAction, "trivial": "x = 1"} {
		b.Run(name, func(b *testing.B) {
			e := newIsolatedTest(b, Options{}, nil)
			execOK(b, e, code)
			pid := e.ChildPID()
			py := runnertest.StartCPython(b)
			if py != nil {
				py.Setup(b, "", code, true)
				py.Run(b, 1)
			}
			const block = 16
			var theirs time.Duration
			b.ResetTimer()
			h0, c0 := selfCPU(), procCPU(pid)
			hs0, cs0 := switches(os.Getpid()), switches(pid)
			for done := 0; done < b.N; {
				n := min(block, b.N-done)
				for range n {
					execOK(b, e, code)
				}
				done += n
				if py != nil {
					b.StopTimer()
					_, cpu := py.Run(b, n)
					theirs += cpu
					b.StartTimer()
				}
			}
			host, kid := selfCPU()-h0, procCPU(pid)-c0
			hs, cs := switches(os.Getpid())-hs0, switches(pid)-cs0
			b.StopTimer()
			if e.ChildPID() != pid {
				b.Fatal("the child was replaced")
			}
			ours := float64(host+kid) / float64(b.N)
			b.ReportMetric(float64(host)/float64(b.N), "host-cpu-ns/step")
			b.ReportMetric(float64(kid)/float64(b.N), "child-cpu-ns/step")
			b.ReportMetric(ours, "cpu-ns/step")
			b.ReportMetric(float64(hs)/float64(b.N), "host-switches/step")
			b.ReportMetric(float64(cs)/float64(b.N), "child-switches/step")
			if py != nil {
				pc := float64(theirs) / float64(b.N)
				b.ReportMetric(pc, "cpython-cpu-ns/step")
				b.ReportMetric(ours/pc, "x-cpython")
			}
		})
	}
}

// selfCPU is this process's CPU time so far, user and system, all threads.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// switches is the number of voluntary context switches of process pid's
// threads so far (those of threads that ended are lost): each is a thread
// that went to sleep and was woken, which is most of what a hand-off
// between processes costs. (Involuntary ones count the machine's load.)
func switches(pid int) int64 {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, _ := os.ReadDir(dir)
	var n int64
	for _, t := range tasks {
		data, err := os.ReadFile(dir + "/" + t.Name() + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
				k, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				n += k
			}
		}
	}
	return n
}

// procCPU is the CPU time of process pid so far, user and system, all
// threads, from /proc (in clock ticks, taken as 1/100 s).
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command's closing parenthesis; utime and
	// stime are the 14th and 15th of the line.
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}
