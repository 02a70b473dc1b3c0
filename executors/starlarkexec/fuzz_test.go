package starlarkexec

import (
	"context"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
)

// FuzzExecute feeds arbitrary source to the engine: it must never panic,
// never hang past its deadline, and always return either a result or an
// exception with a Python type.
func FuzzExecute(f *testing.F) {
	for _, seed := range []string{
		typicalAction,
		"x = 1\nprint(x)",
		"def f(n):\n    return f(n - 1) if n else 0\nf(10)",
		"import math\nmath.sqrt(-1)",
		"s = 'ab' * 10\ns.replace('a', 'b').join(['1', '2'])",
		"for i in range(10):\n    if i % 2:\n        continue\n    print(i)",
		"[x ** 2 for x in range(10) if x > 3]",
		"f'{1 + 1!r:>5}'",
		"while True:\n    pass",
		"final_answer({'a': [1, (2, 3)]})",
		"x = (",
		"\x00\xff",
	} {
		f.Add(seed)
	}
	limits := executors.Limits{Timeout: time.Second, MaxOperations: 200_000, MaxMemory: 16 << 20, MaxOutput: 1000}
	f.Fuzz(func(t *testing.T, code string) {
		e, err := New(Options{Limits: limits})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		start := time.Now()
		res, err := e.Execute(context.Background(), code)
		if err != nil {
			t.Fatalf("executor error: %v", err)
		}
		// A bound only a deadline that does not stop the code exceeds,
		// not a slow machine.
		if time.Since(start) > limits.Timeout+30*time.Second {
			t.Fatalf("execution overran its deadline: %v", time.Since(start))
		}
		if res.Err != nil && res.Err.Type == "" {
			t.Fatalf("exception without a type: %+v", res.Err)
		}
		if len([]rune(res.Stdout)) > limits.MaxOutput+200 {
			t.Fatalf("output cap exceeded: %d characters", len(res.Stdout))
		}
	})
}
