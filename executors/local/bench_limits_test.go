package local

import (
	"context"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/star-agent/star-agent/executors"
)

// BenchmarkOverhead runs each program of BenchmarkPrograms three ways in
// every iteration, interleaved so that the machine's drift (frequency,
// other load, the collector's state) falls on all three alike:
//
//   - bare: go.starlark.net alone, no limits, no front end;
//   - limits: the same Starlark under the engine's monitor with its
//     default limits (steps, memory, deadline), no front end;
//   - engine: the Python source through Execute (front end, runtime
//     helpers, limits).
//
// limits-% is the cost of the limits (limits over bare), lowering-% the
// cost of Python's semantics (engine over limits).
func BenchmarkOverhead(b *testing.B) {
	opts := &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true}
	limits := executors.Limits{Timeout: time.Minute, MaxSteps: 1 << 62, MaxMemory: executors.DefaultMaxMemory, MaxDepth: executors.DefaultMaxDepth}
	for _, p := range programs {
		b.Run(p.name, func(b *testing.B) {
			setup := func() starlark.StringDict {
				globals, err := starlark.ExecFileOptions(opts, &starlark.Thread{}, "setup", p.setup, nil)
				if err != nil {
					b.Fatal(err)
				}
				return globals
			}
			bareGlobals, limitGlobals := setup(), setup()
			e := newTestExecutor(b, Options{Limits: limits})
			ctx := context.Background()
			if res, _ := e.Execute(ctx, p.setup); res.Err != nil {
				b.Fatal(res.Err)
			}
			var bare, limited, engine time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if _, err := starlark.ExecFileOptions(opts, &starlark.Thread{}, "stmt", p.stmt, bareGlobals); err != nil {
					b.Fatal(err)
				}
				bare += time.Since(start)

				start = time.Now()
				runCtx, cancel := context.WithTimeout(ctx, limits.Timeout)
				thread := &starlark.Thread{}
				newMonitor(thread, limitGlobals, limits, runCtx).install()
				if _, err := starlark.ExecFileOptions(opts, thread, "stmt", p.stmt, limitGlobals); err != nil {
					b.Fatal(err)
				}
				cancel()
				limited += time.Since(start)

				start = time.Now()
				if res, _ := e.Execute(ctx, p.stmt); res.Err != nil {
					b.Fatal(res.Err)
				}
				engine += time.Since(start)
			}
			b.StopTimer()
			n := float64(b.N)
			b.ReportMetric(float64(bare.Microseconds())/n/1000, "bare-ms")
			b.ReportMetric(float64(limited.Microseconds())/n/1000, "limits-ms")
			b.ReportMetric(float64(engine.Microseconds())/n/1000, "engine-ms")
			b.ReportMetric(100*(float64(limited)/float64(bare)-1), "limits-%")
			b.ReportMetric(100*(float64(engine)/float64(limited)-1), "lowering-%")
		})
	}
}
