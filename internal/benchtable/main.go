// Command benchtable reads the output of `go test -bench` (one or more
// files, or standard input) and prints one table of the benchmarks that
// compare star-agent with CPython: the benchmark, our figure, CPython's,
// the ratio, the target issue 20 set for it if any, and whether the
// target is met. `make bench` runs it on the output of all its packages.
//
// A benchmark takes part when it reports an x-cpython metric (our figure
// over CPython's, both measured in the same run) or when a target names
// it. Our figure is its median-ns, median-ms, cpu-ns/step or ns/op
// metric, in that order of preference; CPython's is the metric named like
// ours with a "cpython-" prefix, else any cpython-* or py-* metric. A benchmark run
// several times (-count) shows the median of each metric.
//
// The tool only reads and prints: a missed target is reported in the
// table, not in the exit status, because benchmarks on a shared machine
// are not a gate.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// target is what issue 20 asks of a benchmark: a ratio to CPython, or a
// bound on one of its metrics (in that metric's unit).
type target struct {
	pattern *regexp.Regexp // matched against "package.Benchmark/sub"
	ratio   float64        // x-cpython at most this, or 0
	bound   float64        // or our figure (see ours) at most this, in ns
	text    string         // the bound as the table shows it
}

// targets are issue 20's, matched against "executors/starlarkexec.Programs/fib25"
// and the like.
var targets = []target{
	{pattern: regexp.MustCompile(`^executors/starlarkexec\.(Programs|Hot)/fib25$`), ratio: 4.5},
	{pattern: regexp.MustCompile(`^executors/starlarkexec\.(Programs|Hot)/sumsq1M$`), ratio: 3},
	{pattern: regexp.MustCompile(`^executors/starlarkexec\.(Programs|Hot)/sort100k-ints?$`), ratio: 1.5},
	{pattern: regexp.MustCompile(`^executors/starlarkexec\.(Programs|Hot)/dict100k$`), ratio: 2.5},
	{pattern: regexp.MustCompile(`^executors/starlarkexec\.(Programs|Hot)/(build)?join100k$`), ratio: 2.5},
	{pattern: regexp.MustCompile(`^executors/starlarkexec\.TypicalActionCPU/star-agent/run20$`), ratio: 1.2},
	{pattern: regexp.MustCompile(`^executors/starlarkexec\.StepWithState/1M$`), bound: 200_000, text: "≤ 0.2 ms"},
	{pattern: regexp.MustCompile(`^executors/wasm\..*Typical`), ratio: 4},
	{pattern: regexp.MustCompile(`^starlarkagent/serve\.ExecProcess/wasm$`), bound: 100e6, text: "≤ 100 ms"},
	{pattern: regexp.MustCompile(`^executors/wasm\.FirstResult/warm$`), bound: 100e6, text: "≤ 100 ms"},
}

// result is one benchmark's metrics, each the list of values its runs
// reported.
type result struct {
	name    string
	metrics map[string][]float64
	order   []string // metric names as first seen
}

func main() {
	var results []*result
	var err error
	if len(os.Args) < 2 {
		results, err = parse(os.Stdin, results)
	}
	for _, path := range os.Args[1:] {
		var f *os.File
		if f, err = os.Open(path); err != nil {
			break
		}
		results, err = parse(f, results)
		f.Close()
		if err != nil {
			break
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	writeTable(os.Stdout, results)
}

// benchLine is a result line: name, iterations, then value-unit pairs.
var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(-\d+)?\s+\d+\s+(.*)$`)

// parse adds the results of r to rs, merging runs of the same benchmark.
func parse(r io.Reader, rs []*result) ([]*result, error) {
	index := map[string]*result{}
	for _, res := range rs {
		index[res.name] = res
	}
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimPrefix(strings.TrimSpace(rest), "github.com/star-agent/star-agent/")
			continue
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		fields := strings.Fields(m[3])
		if len(fields)%2 != 0 {
			continue // a line the benchmark's own logging broke
		}
		name := pkg + "." + m[1]
		res := index[name]
		if res == nil {
			res = &result{name: name, metrics: map[string][]float64{}}
			index[name] = res
			rs = append(rs, res)
		}
		for i := 0; i < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			unit := fields[i+1]
			if _, seen := res.metrics[unit]; !seen {
				res.order = append(res.order, unit)
			}
			res.metrics[unit] = append(res.metrics[unit], v)
		}
	}
	return rs, sc.Err()
}

// value is the median of a metric's values and whether it was reported.
func (r *result) value(unit string) (float64, bool) {
	vs := r.metrics[unit]
	if len(vs) == 0 {
		return 0, false
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	return s[len(s)/2], true
}

// ours is our figure's metric name.
func (r *result) ours() string {
	for _, u := range []string{"median-ns", "median-ms", "cpu-ns/step", "ns/op"} {
		if _, ok := r.value(u); ok {
			return u
		}
	}
	return ""
}

// theirs is CPython's metric name for ours, or "".
func (r *result) theirs(ours string) string {
	if _, ok := r.value("cpython-" + ours); ok {
		return "cpython-" + ours
	}
	for _, u := range r.order {
		if strings.HasPrefix(u, "cpython-") || strings.HasPrefix(u, "py-") {
			return u
		}
	}
	return ""
}

// writeTable prints the table of rs.
func writeTable(w io.Writer, rs []*result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tours\tCPython\tratio\ttarget\tmet\t")
	rows := 0
	for _, r := range rs {
		ratio, hasRatio := r.value("x-cpython")
		var t *target
		for i := range targets {
			if targets[i].pattern.MatchString(r.name) {
				t = &targets[i]
				break
			}
		}
		if !hasRatio && t == nil {
			continue
		}
		ours := r.ours()
		o, _ := r.value(ours)
		cp := "-"
		if u := r.theirs(ours); u != "" {
			v, _ := r.value(u)
			cp = format(v, u)
		}
		rt := "-"
		if hasRatio {
			rt = fmt.Sprintf("%.2f×", ratio)
		}
		tt, met := "", ""
		switch {
		case t != nil && t.ratio > 0:
			tt = fmt.Sprintf("≤ %g×", t.ratio)
			if hasRatio {
				met = yes(ratio <= t.ratio)
			}
		case t != nil:
			tt = t.text
			if ns, ok := nanoseconds(o, ours); ok {
				met = yes(ns <= t.bound)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", r.name, format(o, ours), cp, rt, tt, met)
		rows++
	}
	if rows == 0 {
		fmt.Fprintln(w, "benchtable: no benchmark compared with CPython in the input")
		return
	}
	fmt.Fprintln(w, "\nRatios to CPython 3.11 (lower is better), ours and CPython's figures from the same run (each benchmark's doc says how they were taken):")
	tw.Flush()
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}

// nanoseconds returns v in nanoseconds when unit is a duration in ns or
// ms (ns/op, median-ns, cpu-ns/step, median-ms, cpython-ms), and false
// otherwise.
func nanoseconds(v float64, unit string) (float64, bool) {
	u, _, _ := strings.Cut(unit, "/")
	switch {
	case strings.HasSuffix(u, "ns"):
		return v, true
	case strings.HasSuffix(u, "ms"):
		return v * 1e6, true
	}
	return 0, false
}

// format shows a figure in its unit, durations in a readable scale.
func format(v float64, unit string) string {
	if v, ok := nanoseconds(v, unit); ok {
		switch {
		case v >= 1e9:
			return fmt.Sprintf("%.2f s", v/1e9)
		case v >= 1e6:
			return fmt.Sprintf("%.2f ms", v/1e6)
		case v >= 1e3:
			return fmt.Sprintf("%.1f µs", v/1e3)
		}
		return fmt.Sprintf("%.0f ns", v)
	}
	return strconv.FormatFloat(v, 'g', 4, 64) + " " + unit
}
