package main

import (
	"strings"
	"testing"
)

// sample is `go test -bench` output as the benchmarks print it, two runs
// of one benchmark, a benchmark with no CPython figure, and a log line.
const sample = `goos: linux
goarch: amd64
pkg: github.com/star-agent/star-agent/executors/starlarkexec
cpu: AMD EPYC
BenchmarkTypicalActionCPU/star-agent/run20-2	       5	    471570 ns/op	    650400 cpu-ns/step	    464157 cpython-cpu-ns/step	         1.401 x-cpython
BenchmarkPrograms/fib25-2     	       5	 107806936 ns/op	  12768225 cpython-median-ns	 119899198 median-ns	         9.390 x-cpython	19441796 B/op	  243026 allocs/op
BenchmarkPrograms/fib25-2     	       5	 100000000 ns/op	  12000000 cpython-median-ns	  48000000 median-ns	         4.000 x-cpython	19441796 B/op	  243026 allocs/op
BenchmarkPrograms/fib25-2     	       5	 100000000 ns/op	  12000000 cpython-median-ns	  50000000 median-ns	         4.100 x-cpython	19441796 B/op	  243026 allocs/op
    bench_test.go:10: a log line
BenchmarkStepWithState/1M-2   	     100	    150000 ns/op
BenchmarkTimeoutOvershoot/loop-2	       2	  20754836 ns/op	         0.7060 overshoot-ms
PASS
pkg: github.com/star-agent/star-agent/executors/wasm
BenchmarkCPU/fib/native-2 	10	 1000 ns/op	 12000000 py-ns/op
BenchmarkFirstResult/warm-2 	10	 170000000 ns/op	 170.5 median-ms	 20.25 cpython-ms	 8.420 x-cpython	 30.5 cpu-ms	 2.1 cpu-x-cpython
`

func TestTable(t *testing.T) {
	rs, err := parse(strings.NewReader(sample), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	writeTable(&out, rs)
	got := out.String()
	t.Log("\n" + got)
	for _, want := range []*struct{ row, cells string }{
		{"executors/starlarkexec.TypicalActionCPU/star-agent/run20", "650.4 µs 464.2 µs 1.40× ≤ 1.2× NO"},
		// The median of three runs: 48 ms is not a median, 9.39× is not.
		{"executors/starlarkexec.Programs/fib25", "50.00 ms 12.00 ms 4.10× ≤ 4.5× yes"},
		{"executors/starlarkexec.StepWithState/1M", "150.0 µs - - ≤ 0.2 ms yes"},
		{"executors/wasm.FirstResult/warm", "170.50 ms 20.25 ms 8.42× ≤ 100 ms NO"},
	} {
		line := ""
		for _, l := range strings.Split(got, "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == want.row {
				line = strings.Join(f[1:], " ")
			}
		}
		if line != want.cells {
			t.Errorf("%s: got %q, want %q", want.row, line, want.cells)
		}
	}
	for _, absent := range []string{"TimeoutOvershoot", "BenchmarkCPU"} {
		if strings.Contains(got, absent) {
			t.Errorf("%s, which neither compares with CPython nor has a target, is in the table", absent)
		}
	}
}

func TestNoComparison(t *testing.T) {
	rs, _ := parse(strings.NewReader("BenchmarkX-2 10 5 ns/op\n"), nil)
	var out strings.Builder
	writeTable(&out, rs)
	if !strings.Contains(out.String(), "no benchmark compared") {
		t.Errorf("got %q", out.String())
	}
}
