package starlarkagent

import (
	"fmt"
	"strings"
	"time"

	"github.com/star-agent/star-agent/prompts"
	"github.com/star-agent/star-agent/providers"
)

// Compaction keeps the prompt of a long run within a context budget.
// Every step resends the whole conversation, so without it a run whose
// steps print a few kilobytes sends prompts that grow without bound.
// Before each action step's model call, when the prompt would pass
// MaxContextTokens, the agent first cuts the observations of the older
// steps to MaxObservation characters; if that is not enough, the model
// writes a summary of the older steps in a step of its own (a
// *SummaryStep in memory, recorded like any model call, so replays
// reproduce it), and the prompt shows the summary in their place. The
// system prompt, the task, the current plan and the latest KeepSteps
// steps are always sent verbatim. Memory keeps every step: only the
// prompt changes.
type Compaction struct {
	// MaxContextTokens is the budget of one prompt, in tokens estimated
	// as a quarter of its bytes (EstimateTokens). 0 means three quarters
	// of the model's context window when ContextWindows knows the model,
	// else no compaction; negative turns compaction off.
	MaxContextTokens int
	// KeepSteps is the number of latest action steps sent verbatim
	// (default 3).
	KeepSteps int
	// MaxObservation is the length, in characters, an older step's
	// observation is cut to (default 1,000).
	MaxObservation int
}

// ContextWindows are the context windows, in tokens, of the models the
// providers know (names matched as Prices matches them).
var ContextWindows = map[string]int{
	"gpt-4o": 128_000, "gpt-4o-mini": 128_000,
	"gpt-4.1": 1_047_576, "gpt-4.1-mini": 1_047_576, "gpt-4.1-nano": 1_047_576,
	"gpt-5": 400_000, "gpt-5-mini": 400_000, "gpt-5-nano": 400_000,
	"o3": 200_000, "o4-mini": 200_000,
	"claude-opus-4-1": 200_000, "claude-opus-4-5": 200_000, "claude-sonnet-4": 200_000,
	"claude-sonnet-4-5": 200_000, "claude-haiku-4-5": 200_000, "claude-3-5-haiku": 200_000,
	"gemini-2.5-pro": 1_048_576, "gemini-2.5-flash": 1_048_576, "gemini-2.5-flash-lite": 1_048_576,
	"gemini-2.0-flash": 1_048_576,
}

// contextLimit is the prompt budget of an agent's runs (0: none).
func (a *Agent) contextLimit() int {
	c := a.opts.Compaction
	switch {
	case c.MaxContextTokens > 0:
		return c.MaxContextTokens
	case c.MaxContextTokens < 0:
		return 0
	}
	windows := Prices{}
	for m, n := range ContextWindows {
		windows[m] = Price{Input: float64(n)}
	}
	if w, ok := windows.Lookup(a.model.ModelID()); ok {
		return int(w.Input) * 3 / 4
	}
	return 0
}

// EstimateTokens estimates the tokens of a prompt: a quarter of the bytes
// of its texts and tool calls, plus 4 per message and 1,000 per image.
func EstimateTokens(msgs []providers.Message) int {
	n := 0
	for _, m := range msgs {
		b := len(m.Content)
		for _, c := range m.ToolCalls {
			b += len(c.Name) + len(c.Arguments)
		}
		n += (b+3)/4 + 4 + 1000*len(m.Images)
	}
	return n
}

// SummaryStep condenses the action steps First to Last of the current
// task, written by the model when the prompt grew past the context
// budget (Options.Compaction). The prompt shows it in their place.
type SummaryStep struct {
	First       int                 `json:"first_step"`
	Last        int                 `json:"last_step"`
	Summary     string              `json:"summary"`
	ModelInput  []providers.Message `json:"model_input,omitempty"`
	ModelOutput string              `json:"model_output"`
	Usage       providers.Usage     `json:"token_usage"`
	Timing      Timing              `json:"timing"`
	// Tokens estimates the prompt before and after the summary.
	TokensBefore int `json:"tokens_before"`
	TokensAfter  int `json:"tokens_after"`
}

// KindSummary is the kind of a SummaryStep.
const KindSummary StepKind = "summary"

// Kind implements Step.
func (*SummaryStep) Kind() StepKind { return KindSummary }

func (s *SummaryStep) messages(p *prompts.Set) []providers.Message {
	return []providers.Message{{Role: providers.RoleUser, Content: promptText(p, prompts.CompactedSteps,
		prompts.Data{First: s.First, Last: s.Last, Summary: strings.TrimSpace(s.Summary)})}}
}

// render is Messages with the compaction applied: the summaries in place
// of the steps they condense, and, with maxObs > 0, the observations of
// the action steps numbered below cutBelow cut to maxObs characters.
func (m *Memory) render(cutBelow, maxObs int) []providers.Message {
	skip := make([]bool, len(m.Steps))
	at := map[int]*SummaryStep{} // where a summary shows: its first step
	task := -1
	for i, s := range m.Steps {
		switch s := s.(type) {
		case *TaskStep:
			task = i
		case *SummaryStep:
			skip[i] = true
			first, last, plan := -1, -1, -1
			for j := task + 1; j < i; j++ {
				switch t := m.Steps[j].(type) {
				case *ActionStep:
					if t.Number >= s.First && t.Number <= s.Last {
						skip[j] = true
						if first < 0 {
							first = j
						}
						last = j
					}
				case *PlanningStep:
					plan = j
				}
			}
			// Older plans go with the steps; the current one stays.
			for j := task + 1; j < last; j++ {
				if _, ok := m.Steps[j].(*PlanningStep); ok && j != plan {
					skip[j] = true
				}
			}
			if first < 0 {
				first = i
			}
			at[first] = s // a later summary of the task replaces an earlier one
		}
	}
	msgs := make([]providers.Message, 0, 1+2*len(m.Steps))
	msgs = append(msgs, m.System.messages(m.prompts)...)
	for i, s := range m.Steps {
		if sum := at[i]; sum != nil {
			msgs = append(msgs, sum.messages(m.prompts)...)
		}
		if skip[i] {
			continue
		}
		if a, ok := s.(*ActionStep); ok && maxObs > 0 && a.Number < cutBelow {
			c := *a
			c.Observation = truncate(m.prompts, c.Observation, maxObs)
			s = &c
		}
		msgs = append(msgs, s.messages(m.prompts)...)
	}
	return msgs
}

// prompt is the conversation the model reads before action step n,
// compacted when it would pass the context budget.
func (r *runner) prompt(n int) ([]providers.Message, error) {
	a := r.a
	a.memMu.Lock()
	msgs := a.memory.render(0, 0)
	a.memMu.Unlock()
	limit := r.contextLimit
	if limit <= 0 {
		return msgs, nil
	}
	before := EstimateTokens(msgs)
	if before <= limit {
		return msgs, nil
	}
	c := a.opts.Compaction
	keep, maxObs := c.KeepSteps, c.MaxObservation
	if keep <= 0 {
		keep = 3
	}
	if maxObs <= 0 {
		maxObs = 1000
	}
	cutBelow := n - keep
	a.memMu.Lock()
	msgs = a.memory.render(cutBelow, maxObs)
	a.memMu.Unlock()
	if t := EstimateTokens(msgs); t <= limit {
		a.log.Info("prompt compacted: older observations cut", "step", n, "tokens_before", before, "tokens_after", t, "limit", limit)
		return msgs, nil
	}
	if cutBelow <= 1 {
		a.log.Warn("the prompt is over the context budget and has no older steps to condense", "step", n, "tokens", before, "limit", limit)
		return msgs, nil
	}
	if err := r.summarize(n, cutBelow-1, before); err != nil {
		return nil, err
	}
	a.memMu.Lock()
	msgs = a.memory.render(cutBelow, maxObs)
	a.memMu.Unlock()
	if t := EstimateTokens(msgs); t > limit {
		a.log.Warn("the prompt is still over the context budget after a summary: the latest steps alone pass it", "step", n, "tokens", t, "limit", limit)
	}
	return msgs, nil
}

// summarize has the model condense the action steps of the current task
// up to step last (with the summary that condensed the earliest of them),
// and appends the SummaryStep.
func (r *runner) summarize(n, last, before int) error {
	a := r.a
	a.memMu.Lock()
	var (
		prev  *SummaryStep
		steps []prompts.StepSummary
		plan  string
		first = 0
	)
	for _, s := range a.memory.Steps {
		switch s := s.(type) {
		case *TaskStep:
			prev, steps, plan, first = nil, nil, "", 0
		case *SummaryStep:
			prev, steps = s, nil
		case *PlanningStep:
			plan = s.Plan
		case *ActionStep:
			if s.Number > last || (prev != nil && s.Number <= prev.Last) {
				continue
			}
			if first == 0 {
				first = s.Number
			}
			sum := prompts.StepSummary{Number: s.Number, Code: s.Code, Observation: truncate(a.prompts, s.Observation, 2000)}
			if len(s.ModelToolCalls) > 0 {
				var calls []string
				for _, c := range s.ToolCalls {
					calls = append(calls, c.PythonCall())
				}
				sum.Code = strings.Join(calls, "\n")
			}
			if s.Error != nil {
				sum.Error = truncate(a.prompts, s.Error.Message, 1000)
			}
			steps = append(steps, sum)
		}
	}
	a.memMu.Unlock()
	data := prompts.Data{Task: r.task, Plan: plan, Steps: steps}
	if prev != nil {
		data.Summary, first = prev.Summary, prev.First
	}
	if first == 0 {
		first = 1
	}
	req, err := a.prompts.Render(prompts.CompactionRequest, data)
	if err != nil {
		return err
	}
	st := &SummaryStep{First: first, Last: last, Timing: Timing{Start: time.Now()}, TokensBefore: before,
		ModelInput: []providers.Message{{Role: providers.RoleUser, Content: req}}}
	out, usage, err := r.generate(st.ModelInput, nil, 0)
	st.Usage = usage
	if err != nil {
		if r.ctx.Err() != nil {
			return r.interrupted()
		}
		return fmt.Errorf("starlarkagent: summary before step %d: %w", n, err)
	}
	st.ModelOutput = out
	st.Summary = strings.TrimSpace(out)
	st.Timing.End = time.Now()
	a.appendStep(st)
	a.memMu.Lock()
	st.TokensAfter = EstimateTokens(a.memory.render(last+1, 0))
	a.memMu.Unlock()
	a.log.Info("older steps condensed into a summary", "before_step", n, "first", first, "last", last,
		"tokens_before", before, "tokens_after", st.TokensAfter, "input_tokens", usage.InputTokens, "output_tokens", usage.OutputTokens)
	r.endStep(st)
	return nil
}
