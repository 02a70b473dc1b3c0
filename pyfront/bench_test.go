package pyfront

import (
	"io"
	"testing"

	"github.com/star-agent/star-agent/builtins/contract"

	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// benchSource is a typical 30-line model-written action.
const benchSource = `import math
from collections import Counter

data = [
    {"name": "alice", "age": 31, "score": 88.5},
    {"name": "bob", "age": 25, "score": 92.0},
    {"name": "carol", "age": 35, "score": 79.25},
]

def summarize(rows, key="score"):
    """Return mean and standard deviation of one column."""
    values = [r[key] for r in rows if r.get(key) is not None]
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / n
    return mean, math.sqrt(var)

mean, std = summarize(data)
print(f"mean={mean:.2f} std={std:.2f}")
oldest = max(data, key=lambda r: r["age"])
print(f"Oldest: {oldest['name'].title()} ({oldest['age']})")
counts = {}
for row in data:
    initial = row["name"][0].upper()
    counts[initial] = counts.get(initial, 0) + 1
adults = [r["name"] for r in data if 18 <= r["age"] < 65]
final_answer({"mean": round(mean, 2), "adults": adults, "counts": counts})
`

func BenchmarkLower30Lines(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchSource)))
	for b.Loop() {
		if _, err := Lower("bench.py", benchSource); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHelperCost runs programs that plain Starlark can also run,
// lowered (through the real runtime helpers) and as plain Starlark, to
// measure what the lowering's helper calls cost.
func BenchmarkHelperCost(b *testing.B) {
	// star is the plain Starlark equivalent when src is not Starlark.
	progs := []struct{ name, src, star string }{
		{"mul", "t = 0\nfor i in range(100000):\n    t += i * 3\n", ""},
		{"iter", "rows = [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10] for _ in range(10000)]\nt = 0\nfor row in rows:\n    for x in row:\n        t += x\n", ""},
		{"compare", "t = 0\nfor i in range(100000):\n    if 10 < i < 500:\n        t += 1\n",
			"t = 0\nfor i in range(100000):\n    if 10 < i and i < 500:\n        t += 1\n"},
		{"compare-call", "t = 0\nfor i in range(100000):\n    if 10 < abs(i) < 500:\n        t += 1\n",
			"t = 0\nfor i in range(100000):\n    a = abs(i)\n    if 10 < a and a < 500:\n        t += 1\n"},
		{"plain", "t = 0\nfor i in range(100000):\n    t += i + 3\n", ""},
	}
	for _, p := range progs {
		b.Run(p.name+"/lowered", func(b *testing.B) {
			prog, err := Lower("b.py", p.src)
			if err != nil {
				b.Fatal(err)
			}
			runBench(b, prog.File)
		})
		b.Run(p.name+"/starlark", func(b *testing.B) {
			src := p.src
			if p.star != "" {
				src = p.star
			}
			f, err := fileOptions.Parse("b.star", src, 0)
			if err != nil {
				b.Fatal(err)
			}
			runBench(b, f)
		})
	}
}

func runBench(b *testing.B, f *syntax.File) {
	pre := predeclared()
	prog, err := starlark.FileProgram(f, func(name string) bool { _, ok := pre[name]; return ok })
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		th := &starlark.Thread{}
		th.SetLocal(contract.StdoutKey, io.Discard)
		if _, err := prog.Init(th, pre); err != nil {
			b.Fatal(err)
		}
	}
}
