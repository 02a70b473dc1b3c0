package serve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/starlarkagent"
)

// TestRunBudgets: a run's budget is what its request asks for, capped by
// the server's; a spent budget ends the run budget_exceeded with the
// answer so far.
func TestRunBudgets(t *testing.T) {
	h, _ := newHarness(t, harnessOpts{modify: func(o *Options) {
		o.Budget = starlarkagent.Budget{MaxTotalTokens: 500}
		o.NewAgent = func(ctx context.Context, req AgentRequest) (*starlarkagent.Agent, error) {
			m := &scripted.Model{}
			for _, code := range []string{"1", "2", "3", "final_answer(4)"} {
				m.Responses = append(m.Responses, scripted.Response{Content: "Thought: go.\n<code>\n" + code + "\n</code>",
					Usage: &providers.Usage{InputTokens: 150, OutputTokens: 50}})
			}
			l, err := starlarkexec.New(starlarkexec.Options{})
			if err != nil {
				return nil, err
			}
			return starlarkagent.New(starlarkagent.Options{Model: req.WrapModel(m), Executor: l})
		}
	}})
	for _, c := range []struct {
		body   string
		output float64
		spent  string
	}{
		{`{"task": "count"}`, 3, "600 tokens used of 500"},                             // the server's cap
		{`{"task": "count", "max_total_tokens": 300}`, 2, "400 tokens used of 300"},    // less: granted
		{`{"task": "count", "max_total_tokens": 100000}`, 3, "600 tokens used of 500"}, // more: capped
	} {
		code, _, body := h.do("POST", "/v1/runs", c.body)
		if code != 202 {
			t.Fatalf("POST %s: %d %s", c.body, code, body)
		}
		var created struct{ ID string }
		json.Unmarshal(body, &created)
		r := h.wait(created.ID)
		if r.State != StateBudgetExceeded || r.Output != c.output || !strings.Contains(r.Error, c.spent) {
			t.Errorf("%s: state %s, output %v, error %q; want budget_exceeded, %v, %q", c.body, r.State, r.Output, r.Error, c.output, c.spent)
		}
	}
	if code, _, body := h.do("POST", "/v1/runs", `{"task": "x", "max_cost": -1}`); code != 400 {
		t.Errorf("a negative budget: %d %s", code, body)
	}
}
