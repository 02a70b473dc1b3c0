package pyfront

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/vm/starlark"
)

// chainKinds are the constructs whose cost could grow faster than their
// length: each makes a statement of n links.
var chainKinds = []struct {
	name string
	stmt func(n int) string
}{
	{"plus-literals", func(n int) string { return "x = " + join("1", "+", n) }},
	{"plus-names", func(n int) string { return "x = " + join("a", "+", n) }},
	{"plus-numeric-locals", func(n int) string { return "    x = i + " + join("-i", "+", n) }}, // in a function: knownNumber
	{"plus-strings", func(n int) string { return "x = " + join("'ab'", "+", n) }},
	{"unary", func(n int) string { return "x = " + rep("-", n) + "a" }},
	{"unary-numeric-local", func(n int) string { return "    x = i + " + rep("-", n) + "i" }},
	{"not", func(n int) string { return "x = " + rep("not ", n) + "a" }},
	{"and", func(n int) string { return "x = " + join("a", " and ", n) }},
	{"ternary", func(n int) string { return "x = " + rep("a if a else ", n) + "a" }},
	{"compare", func(n int) string { return "x = " + join("a", " < ", n/cmpLevels) }},
	{"compare-calls", func(n int) string { return "x = " + join("f(a)", " < ", n/cmpLevels) }},
	{"subscript", func(n int) string { return "x = a" + rep("[0]", n) }},
	{"call", func(n int) string { return "x = f" + rep("()", n) }},
	{"attr", func(n int) string { return "x = a" + rep(".b", n) }},
	{"fstring", func(n int) string { return "x = f'" + rep("{a}", n) + "'" }},
	{"starred", func(n int) string { return "x = [" + rep("*a, ", n) + "]" }},
	{"lambda", func(n int) string { return "x = " + rep("lambda: ", n) + "a" }},
	{"elif", func(n int) string { return "if a: pass\n" + rep("elif a: pass\n", n-1) }},
	{"except", func(n int) string { return "try: pass\n" + rep("except E: pass\n", n) }},
	{"list-display", func(n int) string { return "x = [" + rep("a, ", n) + "]" }},
	{"assign-targets", func(n int) string { return rep("a = ", n) + "1" }},
}

// chainProgram is a program of about total links of kind, in
// statements of n links.
func chainProgram(stmt func(int) string, n, total int) string {
	var b strings.Builder
	b.WriteString("a = 1\n")
	one := stmt(n)
	inFunc := strings.HasPrefix(one, "    ")
	if inFunc {
		b.WriteString("def g(i):\n    i = 0\n")
	}
	for range max(1, total/n) {
		b.WriteString(one)
		b.WriteString("\n")
	}
	return b.String()
}

// BenchmarkChains lowers programs made of chains of every kind, in
// statements of 100, 300 and 900 links (the limit allows about 1,000),
// and reports the cost per link, which must not grow with the length of
// the chain (the lowering was quadratic in it), and the bytes allocated
// per byte of source, lowering (B/srcbyte) and compiling
// (compile-B/srcbyte).
func BenchmarkChains(b *testing.B) {
	const total = 30_000
	for _, k := range chainKinds {
		for _, n := range []int{100, 300, 900} {
			src := chainProgram(k.stmt, n, total)
			if _, err := Lower("bench.py", src); err != nil {
				b.Fatalf("%s/%d: %v", k.name, n, err)
			}
			b.Run(fmt.Sprintf("%s/n=%d", k.name, n), func(b *testing.B) {
				var lowerTime, compileTime time.Duration
				var lowerBytes, compileBytes uint64
				var ms runtime.MemStats
				for b.Loop() {
					runtime.ReadMemStats(&ms)
					before := ms.TotalAlloc
					start := time.Now()
					prog, err := Lower("bench.py", src)
					lowerTime += time.Since(start)
					if err != nil {
						b.Fatal(err)
					}
					runtime.ReadMemStats(&ms)
					lowerBytes += ms.TotalAlloc - before
					before = ms.TotalAlloc
					start = time.Now()
					if _, err := starlark.FileProgram(prog.File, func(string) bool { return true }); err != nil {
						b.Fatal(err)
					}
					compileTime += time.Since(start)
					runtime.ReadMemStats(&ms)
					compileBytes += ms.TotalAlloc - before
				}
				links := float64(b.N) * float64(max(1, total/n)*n)
				size := float64(b.N) * float64(len(src))
				b.ReportMetric(float64(lowerTime.Nanoseconds())/links, "ns/link")
				b.ReportMetric(float64(compileTime.Nanoseconds())/links, "compile-ns/link")
				b.ReportMetric(float64(lowerBytes)/size, "B/srcbyte")
				b.ReportMetric(float64(compileBytes)/size, "compile-B/srcbyte")
			})
		}
	}
}
