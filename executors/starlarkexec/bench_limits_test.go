package starlarkexec

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"

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
	limits := executors.Limits{Timeout: time.Minute, MaxOperations: 1 << 62, MaxMemory: executors.DefaultMaxMemory, MaxDepth: executors.DefaultMaxDepth}
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
			// Each run starts from a collected heap, so that no variant
			// pays for the garbage of another; medians, as one run's
			// collections can land anywhere.
			var bare, limited, engine []time.Duration
			timed := func(f func()) time.Duration {
				b.StopTimer()
				runtime.GC()
				b.StartTimer()
				start := time.Now()
				f()
				return time.Since(start)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				bare = append(bare, timed(func() {
					if _, err := starlark.ExecFileOptions(opts, &starlark.Thread{}, "stmt", p.stmt, bareGlobals); err != nil {
						b.Fatal(err)
					}
				}))
				limited = append(limited, timed(func() {
					runCtx, cancel := context.WithTimeout(ctx, limits.Timeout)
					defer cancel()
					thread := &starlark.Thread{}
					newMonitor(thread, limitGlobals, limits, runCtx).install()
					if _, err := starlark.ExecFileOptions(opts, thread, "stmt", p.stmt, limitGlobals); err != nil {
						b.Fatal(err)
					}
				}))
				engine = append(engine, timed(func() {
					if res, _ := e.Execute(ctx, p.stmt); res.Err != nil {
						b.Fatal(res.Err)
					}
				}))
			}
			b.StopTimer()
			mb, ml, me := median(bare), median(limited), median(engine)
			b.ReportMetric(float64(mb.Microseconds())/1000, "bare-ms")
			b.ReportMetric(float64(ml.Microseconds())/1000, "limits-ms")
			b.ReportMetric(float64(me.Microseconds())/1000, "engine-ms")
			b.ReportMetric(100*(float64(ml)/float64(mb)-1), "limits-%")
			b.ReportMetric(100*(float64(me)/float64(ml)-1), "lowering-%")
		})
	}
}
