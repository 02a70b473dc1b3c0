package starlarkagent

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/scripted"
)

// instantModel answers every step with the same action until the last
// step of its run, where it answers.
func instantModel(steps int) scripted.Func {
	act := &providers.Message{Role: providers.RoleAssistant, Content: "Thought: go on.\n<code>\nprint x\n", Usage: &providers.Usage{InputTokens: 10, OutputTokens: 5}}
	fin := &providers.Message{Role: providers.RoleAssistant, Content: "Thought: done.\n<code>\nfinal ok\n", Usage: &providers.Usage{InputTokens: 10, OutputTokens: 5}}
	return func(_ context.Context, msgs []providers.Message, _ providers.GenerateOptions) (*providers.Message, error) {
		// system, task, then two messages per step.
		if (len(msgs)-2)/2 >= steps-1 {
			return fin, nil
		}
		return act, nil
	}
}

func TestThousandConcurrentAgents(t *testing.T) {
	const agents, steps = 1000, 3
	var wg sync.WaitGroup
	errs := make(chan error, agents)
	for i := range agents {
		wg.Go(func() {
			a, err := New(Options{Model: instantModel(steps), Executor: newFakeExec(), Name: fmt.Sprintf("a%d", i)})
			if err != nil {
				errs <- err
				return
			}
			defer a.Close()
			res, err := a.Run(context.Background(), "task", RunOptions{})
			if err != nil {
				errs <- err
				return
			}
			if res.Output != "ok" || len(a.Memory().ActionSteps()) != steps || res.TokenUsage.InputTokens != 10*steps {
				errs <- fmt.Errorf("agent %d: output %v, %d steps, usage %+v", i, res.Output, len(a.Memory().ActionSteps()), res.TokenUsage)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkStep measures the loop's own cost per action step: an instant
// model, an executor that does nothing, no tracing.
func BenchmarkStep(b *testing.B) {
	const steps = 10
	a, err := New(Options{Model: instantModel(steps), Executor: newFakeExec(), MaxSteps: steps})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := a.Run(context.Background(), "task", RunOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
}

// BenchmarkConcurrentAgents runs 1,000 agents at once and reports steps
// per second.
func BenchmarkConcurrentAgents(b *testing.B) {
	const agents, steps = 1000, 5
	for b.Loop() {
		var wg sync.WaitGroup
		for range agents {
			wg.Go(func() {
				a, err := New(Options{Model: instantModel(steps), Executor: newFakeExec()})
				if err != nil {
					b.Error(err)
					return
				}
				defer a.Close()
				a.Run(context.Background(), "task", RunOptions{})
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(agents*steps*b.N)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkIdleAgentMemory reports the heap held by an idle agent (with a
// fake executor: the engine's own state is the executor's to measure).
func BenchmarkIdleAgentMemory(b *testing.B) {
	const n = 1000
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		keep := make([]*Agent, n)
		for i := range keep {
			a, err := New(Options{Model: instantModel(1), Executor: newFakeExec()})
			if err != nil {
				b.Fatal(err)
			}
			keep[i] = a
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/agent")
		runtime.KeepAlive(keep)
	}
}
