package starlarkexec

import (
	"context"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/tool"
)

// sleepTool is sleep(x): it returns x after 100 ms, or when ctx ends.
var sleepTool = runnertest.Func{S: tool.Spec{Name: "sleep", Inputs: []tool.Input{{Name: "x", Type: tool.Any}}},
	F: func(ctx context.Context, args map[string]any) (any, error) {
		select {
		case <-time.After(100 * time.Millisecond):
			return args["x"], nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}

// BenchmarkParallelToolCalls is the wall time of parallel() with 8 calls
// of a tool that takes 100 ms, and of the same 8 calls in a loop.
func BenchmarkParallelToolCalls(b *testing.B) {
	for _, c := range []struct{ name, code string }{
		{"parallel", "r = parallel(sleep, list(range(8)))"},
		{"sequential", "r = [sleep(i) for i in range(8)]"},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := newTestExecutor(b, Options{})
			if err := e.SetTools(context.Background(), []tool.Tool{sleepTool}); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if res := run(b, e, c.code); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
		})
	}
}
