package pyfront

import (
	"testing"

	"github.com/star-agent/star-agent/vm/starlark"
)

// Costs of the exception and class runtime, measured on the real
// helpers: a loop without try (the baseline every program pays), the same
// loop with a try in a function (cells and a body function per
// iteration) and at module level (the globals view), and method calls
// on instances.
var rtBenchmarks = map[string]string{
	"plain": `
def f(n):
    s = 0
    for i in range(n):
        s += i
    return s
f(100000)
`,
	"try_in_function": `
def f(n):
    s = 0
    for i in range(n):
        try:
            s += i
        except ValueError:
            pass
    return s
f(100000)
`,
	"try_at_module": `
s = 0
for i in range(100000):
    try:
        s += i
    except ValueError:
        pass
`,
	"try_raising": `
def f(n):
    s = 0
    for i in range(n):
        try:
            raise ValueError(i)
        except ValueError as e:
            s += 1
    return s
f(100000)
`,
	"method_calls": `
class C:
    def __init__(self):
        self.s = 0
    def add(self, i):
        self.s += i
c = C()
for i in range(100000):
    c.add(i)
`,
	"dunder_eq": `
class P:
    def __init__(self, x):
        self.x = x
    def __eq__(self, o):
        return self.x == o.x
a, b = P(1), P(1)
n = 0
for i in range(100000):
    if a == b:
        n += 1
`,
}

func BenchmarkRuntime(b *testing.B) {
	for _, name := range []string{"plain", "try_in_function", "try_at_module", "try_raising", "method_calls", "dunder_eq"} {
		src := rtBenchmarks[name]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := runOn(&starlark.Thread{}, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
