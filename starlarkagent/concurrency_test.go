package starlarkagent

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/tool"
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
	for b.Loop() {
		res, err := a.Run(context.Background(), "task", RunOptions{})
		if err != nil || res.Output != "ok" {
			b.Fatalf("output %v, error %v", res.Output, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
}

// BenchmarkConcurrentAgents runs 1,000 agents at once and reports steps
// per second; a run that fails or does not end with its answer after its
// steps fails the benchmark.
func BenchmarkConcurrentAgents(b *testing.B) {
	const agents, steps = 1000, 5
	for b.Loop() {
		var wg sync.WaitGroup
		errs := make(chan error, agents)
		for i := range agents {
			wg.Go(func() {
				a, err := New(Options{Model: instantModel(steps), Executor: newFakeExec()})
				if err != nil {
					errs <- err
					return
				}
				defer a.Close()
				res, err := a.Run(context.Background(), "task", RunOptions{})
				if err != nil {
					errs <- fmt.Errorf("agent %d: %w", i, err)
				} else if res.Output != "ok" || len(a.Memory().ActionSteps()) != steps {
					errs <- fmt.Errorf("agent %d: output %v after %d steps, want ok after %d", i, res.Output, len(a.Memory().ActionSteps()), steps)
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

// scriptedTaskSteps are the actions of scriptedTask: a computation whose result
// depends on the agent's own variable k, a tool call, and the answer.
var scriptedTaskSteps = []string{
	action("Square the numbers below k.", "squares = [i * i for i in range(k)]\nprint(sum(squares))"),
	action("Double it with the tool.", "total = double(sum(squares)) + k\nprint(f\"total={total}\")"),
	action("Answer.", "final_answer({'k': k, 'total': total})"),
}

// scriptedTask writes scriptedTaskSteps in order, from the length of the
// conversation, so that one model serves any number of agents.
var scriptedTask = scripted.Func(func(_ context.Context, msgs []providers.Message, _ providers.GenerateOptions) (*providers.Message, error) {
	n := (len(msgs) - 2) / 2 // system, task, then two messages per step
	if n >= len(scriptedTaskSteps) {
		return nil, fmt.Errorf("step %d of a %d-step script", n+1, len(scriptedTaskSteps))
	}
	return &providers.Message{Role: providers.RoleAssistant, Content: scriptedTaskSteps[n], Usage: &providers.Usage{InputTokens: 10, OutputTokens: 5}}, nil
})

var double = tool.MustNew("double", "Doubles a number.", func(_ context.Context, a struct {
	N int `json:"n" jsonschema:"The number."`
}) (int, error) {
	return 2 * a.N, nil
})

// TestThousandConcurrentAgentsLocalEngine runs 1,000 agents at once, each
// with its own local engine, on a task of several steps (a computation, a
// tool call, the answer) whose result depends on the agent's own input: no
// agent may see another's state or output. It runs under the race
// detector too (make test), in a few seconds.
func TestThousandConcurrentAgentsLocalEngine(t *testing.T) {
	const agents = 1000
	var wg sync.WaitGroup
	errs := make(chan error, agents)
	for i := range agents {
		wg.Go(func() {
			k := i%50 + 1
			a, err := New(Options{Model: scriptedTask, Tools: []tool.Tool{double}, Name: fmt.Sprintf("agent%d", i)})
			if err != nil {
				errs <- err
				return
			}
			defer a.Close()
			res, err := a.Run(context.Background(), "Compute.", RunOptions{AdditionalArgs: map[string]any{"k": int64(k)}})
			if err != nil {
				errs <- fmt.Errorf("agent %d: %w", i, err)
				return
			}
			sum := 0
			for j := range k {
				sum += j * j
			}
			want := map[string]any{"k": int64(k), "total": int64(2*sum + k)}
			steps := a.Memory().ActionSteps()
			switch {
			case fmt.Sprint(res.Output) != fmt.Sprint(want):
				errs <- fmt.Errorf("agent %d: output %v, want %v", i, res.Output, want)
			case len(steps) != 3 || res.TokenUsage.InputTokens != 30:
				errs <- fmt.Errorf("agent %d: %d steps, usage %+v", i, len(steps), res.TokenUsage)
			case steps[0].Observation != fmt.Sprintf("Execution logs:\n%d\nLast output from code snippet:\nNone", sum):
				errs <- fmt.Errorf("agent %d: step 1 observation %q", i, steps[0].Observation)
			case !strings.HasPrefix(steps[1].Observation, fmt.Sprintf("Execution logs:\ntotal=%d\n", 2*sum+k)):
				errs <- fmt.Errorf("agent %d: step 2 observation %q", i, steps[1].Observation)
			case len(steps[1].ToolCalls) != 1 || fmt.Sprint(steps[1].ToolCalls[0].Result) != fmt.Sprint(2*sum):
				errs <- fmt.Errorf("agent %d: tool calls %+v", i, steps[1].ToolCalls)
			}
		})
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 10 {
			t.Error(err)
		}
	}
	if n > 10 {
		t.Errorf("... and %d more errors", n-10)
	}
}
