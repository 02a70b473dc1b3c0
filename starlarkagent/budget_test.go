package starlarkagent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/scripted"
)

// costly answers with content, reporting 150 input and 50 output tokens.
func costly(contents ...string) *scripted.Model {
	m := &scripted.Model{}
	for _, c := range contents {
		m.Responses = append(m.Responses, scripted.Response{Content: c, Usage: &providers.Usage{InputTokens: 150, OutputTokens: 50}})
	}
	return m
}

// TestBudgetStopsRun: a token budget shared with a managed agent stops
// the run before the call that would pass it; the model was told what
// remained once less than a fifth did; the answer so far is the output.
func TestBudgetStopsRun(t *testing.T) {
	member, err := New(Options{Name: "helper", Description: "Helps.", Model: costly(
		action("Think.", `x = 1`),
		action("Answer.", `final_answer("help")`))})
	if err != nil {
		t.Fatal(err)
	}
	m := costly(
		action("Ask for help.", `print(helper(task="help me"))`), // 200 + the helper's 400
		action("Work.", `n = 41`),                                // 800
		action("Work more.", `n`),                                // 1000: 100 remain
		action("Still more.", `n + 1`),                           // 1200: spent
		action("Never asked.", `final_answer(n)`),
	)
	a, err := New(Options{Model: m, ManagedAgents: []*Agent{member}, Budget: Budget{MaxTotalTokens: 1100}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Run(context.Background(), "count", RunOptions{})
	var be *BudgetError
	if !errors.As(err, &be) || !errors.Is(err, ErrBudgetExceeded) || res.State != StateBudgetExceeded {
		t.Fatalf("state %s, error %v", res.State, err)
	}
	if be.Tokens != 1200 || !strings.Contains(err.Error(), "1200 tokens used of 1100") {
		t.Errorf("error %v (tokens %d)", err, be.Tokens)
	}
	if res.Output != int64(42) {
		t.Errorf("answer so far %#v, want 42", res.Output)
	}
	if n := len(m.Calls()); n != 4 {
		t.Errorf("the model was called %d times, want 4", n)
	}
	if res.TokenUsage.InputTokens+res.TokenUsage.OutputTokens != 1200 {
		t.Errorf("usage %+v", res.TokenUsage)
	}
	steps := a.Memory().ActionSteps()
	if steps[1].Notice != "" || !strings.Contains(steps[2].Notice, "Budget: only 100 tokens of 1100 remain") {
		t.Errorf("notices %q, %q", steps[1].Notice, steps[2].Notice)
	}
	if in := m.Calls()[3].Messages; !strings.Contains(in[len(in)-1].Content, "Budget: only 100 tokens of 1100 remain") {
		t.Errorf("the model was not told: %q", in[len(in)-1].Content)
	}
}

// TestBudgetCost: a cost budget prices the reported tokens with the
// table; a model the table lacks is refused when the run starts; a run's
// own budget replaces the agent's.
func TestBudgetCost(t *testing.T) {
	prices := Prices{"scripted": {Input: 1, Output: 2}} // $0.00025 a call
	m := costly(action("a", `1`), action("b", `2`), action("c", `3`), action("d", `final_answer(4)`))
	a, err := New(Options{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Run(context.Background(), "t", RunOptions{Budget: &Budget{MaxCost: 0.0006, Prices: prices}})
	if res.State != StateBudgetExceeded || err == nil || !strings.Contains(err.Error(), "$0.0008 spent of $0.0006") || res.Output != int64(3) {
		t.Fatalf("state %s, output %v, error %v", res.State, res.Output, err)
	}
	if st := a.Memory().ActionSteps(); !strings.Contains(st[1].Notice, "$0.0001 of $0.0006") {
		t.Errorf("notice %q", st[1].Notice)
	}
	_, err = a.Run(context.Background(), "t", RunOptions{Budget: &Budget{MaxCost: 1}})
	if err == nil || !strings.Contains(err.Error(), `the price of model "scripted"`) {
		t.Errorf("unknown price: %v", err)
	}
}

func TestPricesLookup(t *testing.T) {
	p := DefaultPrices()
	for model, want := range map[string]float64{
		"gpt-4o": 2.5, "gpt-4o-2024-08-06": 2.5, "gpt-4o-mini": 0.15, "gpt-4o-mini-2024-07-18": 0.15,
		"openai:gpt-4.1": 2, "models/gemini-2.5-flash": 0.30, "claude-sonnet-4-5-20250929": 3,
	} {
		if pr, ok := p.Lookup(model); !ok || pr.Input != want {
			t.Errorf("%s: %+v %v, want input %v", model, pr, ok, want)
		}
	}
	if _, ok := p.Lookup("gpt-4"); ok {
		t.Error("gpt-4 priced as something else")
	}
	got, err := ReadPrices(strings.NewReader(`{"my-model": {"input": 1, "output": 3}}`))
	if err != nil || got["my-model"].Output != 3 {
		t.Errorf("ReadPrices: %v %v", got, err)
	}
	if _, err := ReadPrices(strings.NewReader(`{"m": {"in": 1}}`)); err == nil {
		t.Error("ReadPrices took an unknown field")
	}
}
