package local

import (
	"context"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/star-agent/star-agent/executors"
)

// BenchmarkProgramsLimitsOnly runs the programs of BenchmarkPrograms as
// plain Starlark (no Python front end, no runtime helpers) under the
// engine's monitor with its default limits: steps, memory and a deadline.
// Read against BenchmarkProgramsBareStarlark it gives the cost of the
// limits alone; BenchmarkPrograms adds Python's semantics on top.
func BenchmarkProgramsLimitsOnly(b *testing.B) {
	opts := &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true}
	limits := executors.Limits{Timeout: time.Minute, MaxSteps: 1 << 62, MaxMemory: executors.DefaultMaxMemory, MaxDepth: executors.DefaultMaxDepth}
	for _, p := range programs {
		b.Run(p.name, func(b *testing.B) {
			thread := &starlark.Thread{}
			globals, err := starlark.ExecFileOptions(opts, thread, "setup", p.setup, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), limits.Timeout)
				thread := &starlark.Thread{}
				newMonitor(thread, globals, limits, ctx).install()
				if _, err := starlark.ExecFileOptions(opts, thread, "stmt", p.stmt, globals); err != nil {
					b.Fatal(err)
				}
				cancel()
			}
		})
	}
}
