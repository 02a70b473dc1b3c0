package starlarkagent

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/replay"
	"github.com/star-agent/star-agent/providers/scripted"
)

// longRun is a model for a run of steps actions, each printing 4 KB, the
// last answering the count; asked for a summary, it writes one. It
// reports the estimated tokens of each prompt as its input tokens, and
// keeps every prompt it was sent.
type longRun struct {
	steps int

	mu      sync.Mutex
	actions int
	prompts [][]providers.Message
}

func (m *longRun) model() providers.Model {
	return scripted.Func(func(_ context.Context, msgs []providers.Message, _ providers.GenerateOptions) (*providers.Message, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.prompts = append(m.prompts, msgs)
		last := msgs[len(msgs)-1].Content
		var text string
		switch {
		case strings.HasPrefix(last, "The conversation about this task has grown too long"):
			n := strings.Count(last, "\nStep ")
			text = fmt.Sprintf("Each step added 1 to total and printed a 4 KB block; %d more steps were condensed here. total holds the count.", n)
		case m.actions == m.steps-1:
			m.actions++
			text = "Thought: done.\n<code>\nfinal_answer(total)\n</code>"
		case m.actions == 0:
			m.actions++
			text = "Thought: start.\n<code>\ntotal = 1\nprint(\"block\", total, \"a\" * 4096)\n</code>"
		default:
			m.actions++
			text = "Thought: one more.\n<code>\ntotal += 1\nprint(\"block\", total, \"b\" * 4096)\n</code>"
		}
		return &providers.Message{Role: providers.RoleAssistant, Content: text,
			Usage: &providers.Usage{InputTokens: EstimateTokens(msgs), OutputTokens: (len(text) + 3) / 4}}, nil
	})
}

// runLong runs a 40-step run with the given compaction and returns the
// result and the model's prompts.
func runLong(t testing.TB, model providers.Model, c Compaction) (*RunResult, *Agent) {
	a, err := New(Options{Model: model, MaxSteps: 50, Compaction: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	res, err := a.Run(context.Background(), "Count to 39, printing a block each time.", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res, a
}

// TestCompaction40Steps: a 40-step run whose steps print 4 KB each keeps
// every prompt (the summaries' too) under the context budget, and gets the
// answer; a recording of it replays, summaries included.
func TestCompaction40Steps(t *testing.T) {
	const limit = 8000
	m := &longRun{steps: 40}
	var rec bytes.Buffer
	res, a := runLong(t, replay.NewRecorder(m.model(), &rec), Compaction{MaxContextTokens: limit})
	if res.Output != int64(39) || res.State != StateSuccess {
		t.Fatalf("state %s, output %v", res.State, res.Output)
	}
	maxTokens := 0
	for i, p := range m.prompts {
		if n := EstimateTokens(p); n > limit {
			t.Errorf("prompt %d: %d tokens, over the budget of %d", i+1, n, limit)
		} else {
			maxTokens = max(maxTokens, n)
		}
	}
	var summaries []*SummaryStep
	for _, s := range a.Memory().Steps {
		if s, ok := s.(*SummaryStep); ok {
			summaries = append(summaries, s)
		}
	}
	if len(summaries) < 2 || summaries[0].First != 1 || summaries[1].First != 1 || summaries[1].Last <= summaries[0].Last {
		t.Fatalf("summaries %+v", summaries)
	}
	// The last prompt: the task, the latest summary, the latest steps.
	last := m.prompts[len(m.prompts)-1]
	text := ""
	for _, msg := range last {
		text += msg.Content + "\n"
	}
	if !strings.Contains(text, "Count to 39") || !strings.Contains(text, fmt.Sprintf("Summary of steps 1 to %d", summaries[len(summaries)-1].Last)) ||
		!strings.Contains(text, "block 39 bbbb") || strings.Contains(text, "block 2 bbbb") {
		t.Errorf("the last prompt lacks the task, the summary or the latest step, or keeps an old one")
	}

	// Replay: the same model outputs in the same order, each request
	// checked against the recording.
	ex, err := replay.Read(&rec)
	if err != nil {
		t.Fatal(err)
	}
	res2, a2 := runLong(t, replay.New(ex, "recording"), Compaction{MaxContextTokens: limit})
	if res2.Output != int64(39) {
		t.Fatalf("replayed output %v (%v)", res2.Output, res2.Err)
	}
	var replayed []*SummaryStep
	for _, s := range a2.Memory().Steps {
		if s, ok := s.(*SummaryStep); ok {
			replayed = append(replayed, s)
		}
	}
	if len(replayed) != len(summaries) || replayed[0].Summary != summaries[0].Summary || replayed[len(replayed)-1].Last != summaries[len(summaries)-1].Last {
		t.Errorf("replayed summaries differ: %d vs %d", len(replayed), len(summaries))
	}

	// Without compaction the same run's prompts grow with every step.
	plain := &longRun{steps: 40}
	res3, _ := runLong(t, plain.model(), Compaction{MaxContextTokens: -1})
	plainMax := 0
	for _, p := range plain.prompts {
		plainMax = max(plainMax, EstimateTokens(p))
	}
	if plainMax < 3*limit {
		t.Errorf("the uncompacted run's largest prompt is %d tokens; the test needs one far over %d", plainMax, limit)
	}
	t.Logf("40 steps of 4 KB: largest prompt %d tokens compacted (%d summaries) vs %d; input tokens %d vs %d (%.0f%% saved)",
		maxTokens, len(summaries), plainMax, res.TokenUsage.InputTokens, res3.TokenUsage.InputTokens,
		100*(1-float64(res.TokenUsage.InputTokens)/float64(res3.TokenUsage.InputTokens)))
}

// TestContextLimitDefault: without MaxContextTokens the budget is three
// quarters of the model's known window, and no compaction for a model
// the table lacks.
func TestContextLimitDefault(t *testing.T) {
	for id, want := range map[string]int{"gpt-4o-2024-08-06": 96_000, "claude-sonnet-4-5": 150_000, "scripted": 0} {
		a, err := New(Options{Model: &scripted.Model{ID: id}})
		if err != nil {
			t.Fatal(err)
		}
		if got := a.contextLimit(); got != want {
			t.Errorf("%s: %d, want %d", id, got, want)
		}
		a.Close()
	}
}

// BenchmarkCompaction40Steps reports, for the 40-step run of
// TestCompaction40Steps with and without an 8,000-token budget, the
// largest prompt and the input tokens of the whole run (estimated, a
// quarter of the bytes).
//
//	go test -run '^$' -bench Compaction40Steps ./starlarkagent/
func BenchmarkCompaction40Steps(b *testing.B) {
	for _, limit := range []int{-1, 8000} {
		b.Run(fmt.Sprintf("max-context-tokens=%d", limit), func(b *testing.B) {
			var largest, input int
			for b.Loop() {
				m := &longRun{steps: 40}
				res, _ := runLong(b, m.model(), Compaction{MaxContextTokens: limit})
				largest, input = 0, res.TokenUsage.InputTokens
				for _, p := range m.prompts {
					largest = max(largest, EstimateTokens(p))
				}
			}
			b.ReportMetric(float64(largest), "largest-prompt-tokens")
			b.ReportMetric(float64(input), "run-input-tokens")
		})
	}
}
