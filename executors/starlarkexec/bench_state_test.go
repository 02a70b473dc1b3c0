package starlarkexec

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkStepWithState measures a step's fixed cost (x = 1) with 0,
// 100k and 1M ints in the executor's state: memory accounting must not
// make it grow with the state.
//
// Steps run back to back, as an agent's would (in far greater number);
// BenchmarkStepWithStateCollected collects garbage, off the clock, every
// 64 steps. The difference is the engine's namespace (core.Namespace.Sync),
// which visits every step module not yet collected: with a large state
// the heap's goal is high, collections are rare, and thousands of them
// pile up between two.
func BenchmarkStepWithState(b *testing.B) { benchStepWithState(b, false) }

// BenchmarkStepWithStateCollected is BenchmarkStepWithState with a
// collection every 64 steps, off the clock.
func BenchmarkStepWithStateCollected(b *testing.B) { benchStepWithState(b, true) }

func benchStepWithState(b *testing.B, collected bool) {
	for _, n := range []struct {
		name string
		n    int
	}{{"0", 0}, {"100k", 100_000}, {"1M", 1_000_000}} {
		b.Run(n.name, func(b *testing.B) {
			e := newTestExecutor(b, Options{})
			ctx := context.Background()
			if n.n > 0 {
				setup := fmt.Sprintf("state = list(range(%d))", n.n)
				if res, _ := e.Execute(ctx, setup); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if collected && i%64 == 0 {
					b.StopTimer()
					runtime.GC()
					b.StartTimer()
				}
				res, err := e.Execute(ctx, "x = 1")
				if err != nil || res.Err != nil {
					b.Fatal(err, res.Err)
				}
			}
		})
	}
}
