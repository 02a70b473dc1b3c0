package starlarkagent

import (
	"context"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/scripted"
)

func TestManualStepping(t *testing.T) {
	m := scripted.New("1. Look.", action("Look.", "print hello"), action("Done.", "final 7"))
	var kinds []StepKind
	var agents []*Agent
	hook := func(_ context.Context, s Step, a *Agent) {
		kinds = append(kinds, s.Kind())
		agents = append(agents, a)
		if s.Kind() == KindAction && len(a.Memory().ActionSteps()) == 0 {
			t.Errorf("the hook ran before the step was in memory")
		}
	}
	var all []StepKind
	a, _ := newTestAgent(t, m, Options{PlanningInterval: 5,
		StepCallbacks: []StepCallback{func(_ context.Context, s Step) { all = append(all, s.Kind()) }},
		OnStep:        map[StepKind][]StepHook{KindAction: {hook}, KindFinalAnswer: {hook}},
	})
	if _, err := a.Step(context.Background()); err == nil || !strings.Contains(err.Error(), "call StartTask first") {
		t.Fatalf("Step without a task: %v", err)
	}
	if err := a.StartTask("say hello", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	st, err := a.Step(context.Background())
	if err != nil || st.Number != 1 || st.IsFinal || !strings.Contains(st.Observation, "hello") {
		t.Fatalf("step 1: %+v %v", st, err)
	}
	st, err = a.Step(context.Background())
	if err != nil || st.Number != 2 || !st.IsFinal || st.Output != "7" {
		t.Fatalf("step 2: %+v %v", st, err)
	}
	if _, err := a.Step(context.Background()); err == nil || !strings.Contains(err.Error(), "has its final answer") {
		t.Errorf("Step after the final answer: %v", err)
	}
	mem := a.Memory().Steps
	if len(mem) != 5 || mem[1].Kind() != KindPlanning || mem[4].Kind() != KindFinalAnswer {
		t.Errorf("memory %v", mem)
	}
	if strings.Join(kindNames(kinds), " ") != "action action final_answer" {
		t.Errorf("per-kind hooks saw %v", kinds)
	}
	if strings.Join(kindNames(all), " ") != "planning action action final_answer" {
		t.Errorf("callbacks saw %v", all)
	}
	for _, got := range agents {
		if got != a {
			t.Errorf("a hook was given another agent")
		}
	}
}

func kindNames(ks []StepKind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// The loop behaviours below have each been removed once, on purpose, to
// see these tests fail.

func TestMaxStepsAnswerReadsTheMemory(t *testing.T) {
	m := scripted.New(action("Look.", "print marker-8812"), "The answer is 8812.")
	a, _ := newTestAgent(t, m, Options{MaxSteps: 1})
	res, err := a.Run(context.Background(), "find it", RunOptions{})
	if err != nil || res.State != StateMaxSteps || res.Output != "The answer is 8812." {
		t.Fatalf("state %s output %#v err %v", res.State, res.Output, err)
	}
	msgs := m.Calls()[1].Messages
	var all strings.Builder
	for _, msg := range msgs {
		all.WriteString(msg.Content)
	}
	if !strings.Contains(all.String(), "marker-8812") || !strings.Contains(all.String(), "find it") {
		t.Errorf("the final answer call did not read the memory:\n%s", all.String())
	}
	if msgs[0].Role != providers.RoleSystem || msgs[len(msgs)-1].Role != providers.RoleUser {
		t.Errorf("final answer call roles: first %s last %s", msgs[0].Role, msgs[len(msgs)-1].Role)
	}
}

func TestMaxStepsAnswerFailureIsTheOutput(t *testing.T) {
	m := &scripted.Model{Responses: []scripted.Response{
		{Content: action("Look.", "print x")},
		{Err: errBoom},
	}}
	a, _ := newTestAgent(t, m, Options{MaxSteps: 1})
	res, err := a.Run(context.Background(), "t", RunOptions{})
	out, _ := res.Output.(string)
	if err != nil || res.State != StateMaxSteps || !strings.HasPrefix(out, "Error in generating final LLM output:\n") || !strings.Contains(out, "boom") {
		t.Fatalf("state %s output %#v err %v", res.State, res.Output, err)
	}
}

type boomError struct{}

func (boomError) Error() string { return "boom" }

var errBoom = boomError{}

func TestPlanUpdateReadsASummaryOfTheHistory(t *testing.T) {
	m := scripted.New(
		"1. First plan, verbatim-plan-one.",
		action("Thinking aloud thought-xyz.", "print marker-5521"),
		"1. Updated plan.",
		action("Done.", "final ok"),
	)
	a, _ := newTestAgent(t, m, Options{PlanningInterval: 1})
	if _, err := a.Run(context.Background(), "plan it", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	update := m.Calls()[2]
	var all strings.Builder
	for _, msg := range update.Messages {
		all.WriteString(msg.Content + "\n")
	}
	s := all.String()
	if !strings.Contains(s, "marker-5521") || !strings.Contains(s, "print marker-5521") || !strings.Contains(s, "plan it") {
		t.Errorf("the plan update did not read the history:\n%s", s)
	}
	if strings.Contains(s, "verbatim-plan-one") || strings.Contains(s, "thought-xyz") {
		t.Errorf("the plan update read the earlier plan or the thoughts verbatim:\n%s", s)
	}
}

func TestEndPlanAndEndCodeStripped(t *testing.T) {
	m := scripted.New(
		"1. Do it.\n<end_plan>\nThought: I will also act here <code>final_answer('leak')</code>",
		"Thought: go.\n<code>\nfinal_answer('ok')\n<end_code>",
	)
	m.IgnoreStop = true
	a, err := New(Options{Model: m, PlanningInterval: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Run(context.Background(), "t", RunOptions{})
	if err != nil || res.Output != "ok" {
		t.Fatalf("output %#v err %v", res.Output, err)
	}
	mem := a.Memory()
	plan := mem.Steps[1].(*PlanningStep)
	if strings.Contains(plan.Plan, "<end_plan>") || strings.Contains(plan.Plan, "leak") {
		t.Errorf("plan %q", plan.Plan)
	}
	if code := mem.ActionSteps()[0].Code; code != "final_answer('ok')" {
		t.Errorf("code %q", code)
	}
}

func TestLastOutputCappedAt20000(t *testing.T) {
	m := scripted.New("<code>\n'x' * 30000\n</code>", "<code>\nfinal_answer(1)\n</code>")
	a, err := New(Options{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Run(context.Background(), "t", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	obs := lastMessage(t, m, 1).Content
	if n := strings.Count(obs, "x"); n < MaxOutputLength-10 || n > MaxOutputLength+10 {
		t.Errorf("the last output kept %d x's, want about %d", n, MaxOutputLength)
	}
}
