package starlarkagent

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/tool"
)

// localModel answers with a trivial action in the engine's Python until
// the last step of its run.
func localModel(steps int) func(context.Context, []providers.Message, providers.GenerateOptions) (*providers.Message, error) {
	act := &providers.Message{Role: providers.RoleAssistant, Content: "Thought: go on.\n<code>\nx = 1\n", Usage: &providers.Usage{InputTokens: 10, OutputTokens: 5}}
	fin := &providers.Message{Role: providers.RoleAssistant, Content: "Thought: done.\n<code>\nfinal_answer(x)\n", Usage: &providers.Usage{InputTokens: 10, OutputTokens: 5}}
	return func(_ context.Context, msgs []providers.Message, _ providers.GenerateOptions) (*providers.Message, error) {
		if (len(msgs)-2)/2 >= steps-1 {
			return fin, nil
		}
		return act, nil
	}
}

type funcModel func(context.Context, []providers.Message, providers.GenerateOptions) (*providers.Message, error)

func (f funcModel) ModelID() string { return "instant" }
func (f funcModel) Generate(ctx context.Context, m []providers.Message, o providers.GenerateOptions) (*providers.Message, error) {
	return f(ctx, m, o)
}

// BenchmarkStepLocal is the cost per step of the whole loop on the real
// Starlark engine with a trivial action (x = 1) and an instant model.
func BenchmarkStepLocal(b *testing.B) {
	const steps = 10
	a, err := New(Options{Model: funcModel(localModel(steps)), MaxSteps: steps})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	b.ReportAllocs()
	for b.Loop() {
		res, err := a.Run(context.Background(), "task", RunOptions{})
		if err != nil || res.Output != int64(1) {
			b.Fatalf("%v %v", res.Output, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
}

// BenchmarkIdleAgentLocal reports the heap held by an idle agent with its
// own Starlark engine.
func BenchmarkIdleAgentLocal(b *testing.B) {
	const n = 200
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		keep := make([]*Agent, n)
		for i := range keep {
			a, err := New(Options{Model: funcModel(localModel(1))})
			if err != nil {
				b.Fatal(err)
			}
			keep[i] = a
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/agent")
		for _, a := range keep {
			a.Close()
		}
	}
}

// BenchmarkAgentAfterRunLocal reports the heap held by an agent that has
// run 10 steps on the Starlark engine and keeps their memory (the state of
// an agent between a run and a resumed one).
func BenchmarkAgentAfterRunLocal(b *testing.B) {
	const n, steps = 200, 10
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		keep := make([]*Agent, n)
		for i := range keep {
			a, err := New(Options{Model: funcModel(localModel(steps)), MaxSteps: steps})
			if err != nil {
				b.Fatal(err)
			}
			if res, err := a.Run(context.Background(), "task", RunOptions{}); err != nil || res.Output != int64(1) {
				b.Fatalf("output %v, error %v", res.Output, err)
			}
			keep[i] = a
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/agent")
		for _, a := range keep {
			a.Close()
		}
	}
}

// BenchmarkConcurrentAgentsLocal runs 1,000 agents at once on the Starlark
// engine and reports steps per second; a run that fails or does not end
// with its answer fails the benchmark.
func BenchmarkConcurrentAgentsLocal(b *testing.B) {
	const agents, steps = 1000, 5
	for b.Loop() {
		var wg sync.WaitGroup
		errs := make(chan error, agents)
		for i := range agents {
			wg.Go(func() {
				a, err := New(Options{Model: funcModel(localModel(steps))})
				if err != nil {
					errs <- err
					return
				}
				defer a.Close()
				res, err := a.Run(context.Background(), "task", RunOptions{})
				if err != nil {
					errs <- fmt.Errorf("agent %d: %w", i, err)
				} else if res.Output != int64(1) {
					errs <- fmt.Errorf("agent %d: output %v, want 1", i, res.Output)
				}
			})
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			b.Fatalf("%v (and %d more failures)", err, len(errs))
		}
	}
	b.ReportMetric(float64(agents*steps*b.N)/b.Elapsed().Seconds(), "steps/s")
}

// toolModel calls a trivial tool until the last step of its run, then
// final_answer, with native tool calls.
func toolModel(steps int) func(context.Context, []providers.Message, providers.GenerateOptions) (*providers.Message, error) {
	u := &providers.Usage{InputTokens: 10, OutputTokens: 5}
	act := &providers.Message{Role: providers.RoleAssistant, Content: "Go on.", Usage: u,
		ToolCalls: []providers.ToolCall{{ID: "a", Name: "echo", Arguments: []byte(`{"city":"Paris"}`)}}}
	fin := &providers.Message{Role: providers.RoleAssistant, Usage: u,
		ToolCalls: []providers.ToolCall{{ID: "f", Name: "final_answer", Arguments: []byte(`{"answer":1}`)}}}
	return func(_ context.Context, msgs []providers.Message, _ providers.GenerateOptions) (*providers.Message, error) {
		if (len(msgs)-2)/2 >= steps-1 {
			return fin, nil
		}
		return act, nil
	}
}

// BenchmarkToolCallingStep is the cost per step of the tool-calling loop
// with an instant model and a trivial Go tool (compare BenchmarkStepLocal).
func BenchmarkToolCallingStep(b *testing.B) {
	const steps = 10
	echo := tool.MustNew("echo", "Echoes the city.", func(_ context.Context, in cityArgs) (string, error) { return in.City, nil })
	a, err := New(Options{Model: funcModel(toolModel(steps)), MaxSteps: steps, ActionType: ActionToolCalling, Tools: []tool.Tool{echo}})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	b.ReportAllocs()
	for b.Loop() {
		res, err := a.Run(context.Background(), "task", RunOptions{})
		if err != nil || res.Output != int64(1) || len(res.Steps) != steps+2 {
			b.Fatalf("%v %v %d steps", res.Output, err, len(res.Steps))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
}
