package starlarkagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/tool"
)

func action(thought, code string) string {
	return "Thought: " + thought + "\n<code>\n" + code + "\n</code>"
}

func newTestAgent(t testing.TB, model providers.Model, opts Options) (*Agent, *fakeExec) {
	t.Helper()
	ex := newFakeExec()
	opts.Model = model
	if opts.Executor == nil {
		opts.Executor = ex
	}
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, ex
}

// lastUser returns the last message of call i of a scripted model.
func lastMessage(t *testing.T, m *scripted.Model, i int) providers.Message {
	t.Helper()
	calls := m.Calls()
	if i >= len(calls) {
		t.Fatalf("model was called %d times, want at least %d", len(calls), i+1)
	}
	msgs := calls[i].Messages
	return msgs[len(msgs)-1]
}

func TestRunSuccessInSeveralSteps(t *testing.T) {
	m := scripted.New(
		action("Look first.", "print hello\nvalue 42"),
		action("Done.", "final the answer"),
	)
	a, ex := newTestAgent(t, m, Options{})
	res, err := a.Run(context.Background(), "Say hello.", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.State != StateSuccess || res.Output != "the answer" {
		t.Fatalf("state %s output %#v", res.State, res.Output)
	}
	if got := ex.codes; len(got) != 2 || got[0] != "print hello\nvalue 42" {
		t.Fatalf("codes run: %q", got)
	}
	first := m.Calls()[0]
	if first.Messages[0].Role != providers.RoleSystem || !strings.Contains(first.Messages[0].Content, "def final_answer(answer: Any) -> Any:") {
		t.Errorf("system prompt lacks final_answer stub:\n%s", first.Messages[0].Content)
	}
	if got := first.Messages[1].Content; got != "New task:\nSay hello." {
		t.Errorf("task message %q", got)
	}
	wantStops := []string{"Observation:", "Calling tools:", "</code>"}
	if fmt.Sprint(first.Options.StopSequences) != fmt.Sprint(wantStops) {
		t.Errorf("stop sequences %q, want %q", first.Options.StopSequences, wantStops)
	}
	obs := lastMessage(t, m, 1)
	want := "Observation:\nExecution logs:\nhello\nLast output from code snippet:\n42"
	if obs.Role != providers.RoleUser || obs.Content != want {
		t.Errorf("observation message\n%q\nwant\n%q", obs.Content, want)
	}
	// The model's output was cut at the stop sequence; memory has it closed.
	steps := a.Memory().ActionSteps()
	if len(steps) != 2 || !strings.HasSuffix(steps[0].ModelOutput, "</code>") {
		t.Fatalf("steps %d, first output %q", len(steps), steps[0].ModelOutput)
	}
	if res.TokenUsage.InputTokens == 0 || res.TokenUsage != steps[0].Usage.Add(steps[1].Usage) {
		t.Errorf("token usage %+v, steps %+v %+v", res.TokenUsage, steps[0].Usage, steps[1].Usage)
	}
	if len(res.Steps) != 4 { // task, 2 actions, final answer
		t.Errorf("result has %d steps, want 4", len(res.Steps))
	}
}

func TestRunRecoversFromError(t *testing.T) {
	m := scripted.New(
		action("Divide.", "print before\nraise ZeroDivisionError division by zero"),
		action("Fix it.", "final 1"),
	)
	a, _ := newTestAgent(t, m, Options{})
	res, err := a.Run(context.Background(), "t", RunOptions{})
	if err != nil || res.State != StateSuccess {
		t.Fatalf("state %s err %v", res.State, err)
	}
	got := lastMessage(t, m, 1).Content
	want := "Observation:\nExecution logs:\nbefore\n\nError:\nCode execution failed at line 'raise ZeroDivisionError division by zero' due to: ZeroDivisionError: division by zero\nNow let's retry: take care not to repeat previous errors! If you have retried several times, try a completely different approach.\n"
	if got != want {
		t.Errorf("error message\n%q\nwant\n%q", got, want)
	}
	st := a.Memory().ActionSteps()[0]
	if st.Error == nil || st.Error.Kind != ErrorExecution || st.Error.Type != "ZeroDivisionError" || st.Error.Line != 2 {
		t.Errorf("step error %+v", st.Error)
	}
}

func TestRunParseErrorThenRecovery(t *testing.T) {
	m := scripted.New("I think the answer is 4.", action("Now with code.", "final 4"))
	a, ex := newTestAgent(t, m, Options{})
	res, err := a.Run(context.Background(), "2+2?", RunOptions{})
	if err != nil || res.Output != "4" {
		t.Fatalf("output %v err %v", res.Output, err)
	}
	if len(ex.codes) != 1 {
		t.Errorf("executed %d snippets, want 1", len(ex.codes))
	}
	got := lastMessage(t, m, 1).Content
	for _, want := range []string{"Error:\nYour code snippet is invalid", "I think the answer is 4.", "<code>\n# Your Python code here\n</code>"} {
		if !strings.Contains(got, want) {
			t.Errorf("parse error message lacks %q:\n%s", want, got)
		}
	}
}

func TestRunMaxSteps(t *testing.T) {
	m := scripted.New(action("a", "print 1"), action("b", "print 2"), "The answer is probably 3.")
	a, _ := newTestAgent(t, m, Options{MaxSteps: 2})
	res, err := a.Run(context.Background(), "Count.", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.State != StateMaxSteps || res.Output != "The answer is probably 3." {
		t.Fatalf("state %s output %#v", res.State, res.Output)
	}
	last := m.Calls()[2].Messages
	if last[0].Role != providers.RoleSystem || !strings.Contains(last[0].Content, "ran out of steps") {
		t.Errorf("final call system message %q", last[0].Content)
	}
	if !strings.Contains(last[len(last)-1].Content, "Count.") {
		t.Errorf("final call does not restate the task: %q", last[len(last)-1].Content)
	}
	if len(m.Calls()[2].Options.StopSequences) != 0 {
		t.Errorf("final call has stop sequences")
	}
	fa, ok := res.Steps[len(res.Steps)-1].(*FinalAnswerStep)
	if !ok || !fa.FromMemory {
		t.Errorf("last step %#v", res.Steps[len(res.Steps)-1])
	}
}

func TestRunPlanning(t *testing.T) {
	m := scripted.New(
		"1. Print.\n2. Answer.\n<end_plan>",
		action("a", "print 1"),
		action("b", "print 2"),
		"1. Answer now.",
		action("c", "final ok"),
	)
	a, _ := newTestAgent(t, m, Options{PlanningInterval: 2})
	res, err := a.Run(context.Background(), "Plan it.", RunOptions{})
	if err != nil || res.Output != "ok" {
		t.Fatalf("output %v err %v", res.Output, err)
	}
	calls := m.Calls()
	if len(calls) != 5 {
		t.Fatalf("%d model calls, want 5", len(calls))
	}
	if got := calls[0].Options.StopSequences; len(got) != 1 || got[0] != "<end_plan>" {
		t.Errorf("planning stops %q", got)
	}
	if c := calls[0].Messages; len(c) != 1 || !strings.Contains(c[0].Content, "Plan it.") {
		t.Errorf("initial plan prompt %+v", c)
	}
	// The plan is in the conversation of the next step.
	msgs := calls[1].Messages
	if got := msgs[len(msgs)-1].Content; got != "Now proceed and carry out this plan." {
		t.Errorf("after plan: %q", got)
	}
	if !strings.Contains(msgs[len(msgs)-2].Content, "1. Print.\n2. Answer.") || strings.Contains(msgs[len(msgs)-2].Content, "<end_plan>") {
		t.Errorf("plan message %q", msgs[len(msgs)-2].Content)
	}
	upd := calls[3].Messages
	if !strings.Contains(upd[len(upd)-1].Content, "You have 1 steps left") && !strings.Contains(upd[len(upd)-1].Content, "steps left") {
		t.Errorf("update plan prompt %q", upd[len(upd)-1].Content)
	}
	kinds := []StepKind{}
	for _, s := range res.Steps {
		kinds = append(kinds, s.Kind())
	}
	if fmt.Sprint(kinds) != "[task planning action action planning action final_answer]" {
		t.Errorf("steps %v", kinds)
	}
}

func TestFinalAnswerCheckRejects(t *testing.T) {
	m := scripted.New(action("a", "final 41"), action("b", "final 42"))
	check := func(_ context.Context, answer any, mem *Memory) error {
		if answer != "42" {
			return errors.New("the answer must be 42")
		}
		if len(mem.ActionSteps()) == 0 {
			return errors.New("memory not passed")
		}
		return nil
	}
	a, _ := newTestAgent(t, m, Options{FinalAnswerChecks: []FinalAnswerCheck{check}})
	res, err := a.Run(context.Background(), "t", RunOptions{})
	if err != nil || res.Output != "42" {
		t.Fatalf("output %v err %v", res.Output, err)
	}
	st := a.Memory().ActionSteps()[0]
	if st.Error == nil || st.Error.Kind != ErrorFinalAnswerCheck || st.IsFinal {
		t.Fatalf("first step %+v", st.Error)
	}
	if got := lastMessage(t, m, 1).Content; !strings.Contains(got, "Error:\nCheck 1 of the final answer failed: the answer '41' was rejected: the answer must be 42") {
		t.Errorf("model read %q", got)
	}
}

type echoTool struct{}

func (echoTool) Spec() tool.Spec {
	return tool.Spec{Name: "echo", Description: "Echoes.", Inputs: []tool.Input{{Name: "text", Type: tool.String, Description: "What to echo."}}, Output: tool.String}
}

func (echoTool) Call(_ context.Context, args map[string]any) (any, error) {
	if args["text"] == "fail" {
		return nil, errors.New("echo refused")
	}
	return "echo: " + args["text"].(string), nil
}

func TestToolCallsRecorded(t *testing.T) {
	m := scripted.New(action("a", "call echo hi\ncall echo fail"), action("b", "final done"))
	a, _ := newTestAgent(t, m, Options{Tools: []tool.Tool{echoTool{}}})
	if !strings.Contains(a.SystemPrompt(), "def echo(text: str) -> str:\n    \"\"\"Echoes.\n\n    Args:\n        text: What to echo.\n    \"\"\"") {
		t.Errorf("system prompt lacks the echo stub:\n%s", a.SystemPrompt())
	}
	if _, err := a.Run(context.Background(), "t", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	calls := a.Memory().ActionSteps()[0].ToolCalls
	if len(calls) != 2 || calls[0].Result != "echo: hi" || calls[1].Error != "echo refused" {
		t.Fatalf("tool calls %+v", calls)
	}
}

func TestManagedAgent(t *testing.T) {
	sub := scripted.New(action("sub", "print working\nfinal sub result"))
	sub.Responses[0].Usage = &providers.Usage{InputTokens: 100, OutputTokens: 10}
	helper, _ := newTestAgent(t, sub, Options{Name: "helper", Description: "Helps with everything."})
	boss := scripted.New(action("delegate", "call helper find it"), action("done", "final ok"))
	boss.Responses[0].Usage = &providers.Usage{InputTokens: 1, OutputTokens: 1}
	boss.Responses[1].Usage = &providers.Usage{InputTokens: 2, OutputTokens: 2}
	a, _ := newTestAgent(t, boss, Options{ManagedAgents: []*Agent{helper}})
	if !strings.Contains(a.SystemPrompt(), "def helper(task: str, additional_args: dict | None = None) -> str:\n    \"\"\"Helps with everything.") {
		t.Errorf("team member missing from system prompt:\n%s", a.SystemPrompt())
	}
	res, err := a.Run(context.Background(), "t", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (providers.Usage{InputTokens: 103, OutputTokens: 13}); res.TokenUsage != want {
		t.Errorf("usage %+v, want %+v", res.TokenUsage, want)
	}
	subTask := lastMessage(t, sub, 0).Content
	if !strings.Contains(subTask, "You are a helpful agent named 'helper'.") || !strings.Contains(subTask, "find it") {
		t.Errorf("managed task %q", subTask)
	}
	obs := lastMessage(t, boss, 1).Content
	if !strings.Contains(obs, "Here is the final answer from your managed agent 'helper':\nsub result") {
		t.Errorf("manager read %q", obs)
	}
}

func TestManagedAgentNeedsItsOwnExecutor(t *testing.T) {
	helper, ex := newTestAgent(t, scripted.New(action("sub", "final x")), Options{Name: "helper", Description: "Helps."})
	_, err := New(Options{Model: scripted.New(action("a", "final y")), Executor: ex, ManagedAgents: []*Agent{helper}})
	if err == nil || !strings.Contains(err.Error(), `managed agent "helper" uses the manager's Executor`) {
		t.Fatalf("err = %v, want a refusal of the shared executor", err)
	}
}

func TestCancelDuringModelCall(t *testing.T) {
	m := &scripted.Model{Responses: []scripted.Response{
		{Content: action("a", "print 1")},
		{Content: action("b", "final x"), Delay: time.Hour},
	}}
	a, _ := newTestAgent(t, m, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	// The model would answer in an hour: returning interrupted is the
	// cancellation reaching the model call.
	res, err := a.Run(ctx, "t", RunOptions{})
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) || res.State != StateError {
		t.Fatalf("state %s err %v", res.State, err)
	}
	steps := a.Memory().ActionSteps()
	if len(steps) != 2 || steps[1].Error == nil || steps[1].Error.Kind != ErrorInterrupted {
		t.Fatalf("memory after cancel: %d steps", len(steps))
	}
	// The interrupted step does not confuse the model when the run resumes.
	m.Responses = append(m.Responses, scripted.Response{Content: action("c", "final y")})
	res, err = a.Run(context.Background(), "go on", RunOptions{Resume: true})
	if err != nil || res.Output != "y" {
		t.Fatalf("resumed: %v %v", res.Output, err)
	}
}

func TestCancelDuringExecution(t *testing.T) {
	m := scripted.New(action("a", "print started\nblock"))
	a, _ := newTestAgent(t, m, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res, err := a.Run(ctx, "t", RunOptions{})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err %v", err)
	}
	st := res.Steps[1].(*ActionStep)
	if st.Error.Kind != ErrorInterrupted || !strings.Contains(st.Observation, "started") {
		t.Errorf("step %+v obs %q", st.Error, st.Observation)
	}
}

func TestStreamEvents(t *testing.T) {
	m := scripted.New(action("first", "call echo x"), action("second", "final done"))
	a, _ := newTestAgent(t, m, Options{Tools: []tool.Tool{echoTool{}}})
	var kinds []string
	var text strings.Builder
	var end *RunEnd
	for ev, err := range a.Stream(context.Background(), "t", RunOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%T", ev)[len("*starlarkagent."):]
		if d, ok := ev.(*ModelDelta); ok {
			text.WriteString(d.Content)
			if len(kinds) > 0 && kinds[len(kinds)-1] == name {
				continue
			}
		}
		kinds = append(kinds, name)
		if e, ok := ev.(*RunEnd); ok {
			end = e
		}
	}
	want := "[ModelDelta CodeAction ToolCallEvent Observation StepEnd ModelDelta CodeAction Observation StepEnd StepEnd FinalAnswer RunEnd]"
	if fmt.Sprint(kinds) != want {
		t.Errorf("events\n%v\nwant\n%s", kinds, want)
	}
	if !strings.Contains(text.String(), "Thought: first") {
		t.Errorf("deltas %q", text.String())
	}
	if end == nil || end.Result.Output != "done" {
		t.Errorf("run end %+v", end)
	}
}

func TestStreamStopCancelsRun(t *testing.T) {
	m := scripted.New(action("a", "print 1"), action("b", "print 2"), action("c", "final 3"))
	a, ex := newTestAgent(t, m, Options{})
	for ev := range a.Stream(context.Background(), "t", RunOptions{}) {
		if _, ok := ev.(*CodeAction); ok {
			break
		}
	}
	if len(ex.codes) > 1 {
		t.Errorf("run went on after the consumer stopped: %d executions", len(ex.codes))
	}
	if m.Remaining() < 1 {
		t.Errorf("model was called after the consumer stopped")
	}
}

func TestMemoryJSONRoundTripAndReplay(t *testing.T) {
	m := scripted.New("no code here", action("a", "import math\nprint 1\nraise ValueError bad"), action("b", "final done"))
	a, _ := newTestAgent(t, m, Options{PlanningInterval: 0})
	res, err := a.Run(context.Background(), "t", RunOptions{AdditionalArgs: map[string]any{"n": int64(3)}})
	if err != nil {
		t.Fatal(err)
	}
	mem := a.Memory()
	b, err := json.Marshal(mem)
	if err != nil {
		t.Fatal(err)
	}
	var back Memory
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	// Timings lose their monotonic clock reading in JSON, so compare a
	// second round trip, and the conversation.
	b2, _ := json.Marshal(&back)
	var again Memory
	if err := json.Unmarshal(b2, &again); err != nil {
		t.Fatal(err)
	}
	if b3, _ := json.Marshal(&again); !bytes.Equal(b2, b3) {
		t.Errorf("round trip changed the memory:\n%s\n%s", b2, b3)
	}
	if got := back.Steps[0].(*TaskStep).AdditionalArgs["n"]; got != int64(3) {
		t.Errorf("additional arg n came back as %#v", got)
	}
	if got, want := fmt.Sprint(back.Messages()), fmt.Sprint(mem.Messages()); got != want {
		t.Errorf("messages differ after round trip")
	}
	if back.ActionSteps()[1].Imports[0] != "math" {
		t.Errorf("imports lost: %+v", back.ActionSteps()[1])
	}
	var buf bytes.Buffer
	if err := back.Replay(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"━━━ New task ━━━\nt\nAdditional arguments: {'n': 3}", "━━━ Step 1 ━━━", "Error: no code block", "  │ import math", "Error: Code execution failed at line 'raise ValueError bad' due to: ValueError: bad", "━━━ Final answer ━━━\ndone"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("replay lacks %q:\n%s", want, buf.String())
		}
	}
	rb, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var rr RunResult
	if err := json.Unmarshal(rb, &rr); err != nil || rr.State != StateSuccess || len(rr.Steps) != len(res.Steps) {
		t.Fatalf("result round trip: %v %+v", err, rr)
	}
	for _, key := range []string{`"output":"done"`, `"state":"success"`, `"token_usage":{"input_tokens":`, `"timing":{"start_time"`} {
		if !bytes.Contains(rb, []byte(key)) {
			t.Errorf("result JSON lacks %s", key)
		}
	}
}

func TestResumeKeepsMemory(t *testing.T) {
	m := scripted.New(action("a", "final 1"), action("b", "final 2"), action("c", "final 3"))
	a, _ := newTestAgent(t, m, Options{})
	a.Run(context.Background(), "one", RunOptions{})
	a.Run(context.Background(), "two", RunOptions{Resume: true})
	if n := len(m.Calls()[1].Messages); n != 5 { // system, task, step, obs, task
		t.Errorf("resumed run sent %d messages, want 5", n)
	}
	a.Run(context.Background(), "three", RunOptions{})
	if n := len(m.Calls()[2].Messages); n != 2 {
		t.Errorf("fresh run sent %d messages, want 2", n)
	}
}

func TestNewValidates(t *testing.T) {
	m := scripted.New()
	helper, _ := newTestAgent(t, m, Options{Name: "helper"})
	for name, opts := range map[string]Options{
		"no model":             {Executor: newFakeExec()},
		"bad name":             {Model: m, Executor: newFakeExec(), Name: "my agent"},
		"duplicate tool":       {Model: m, Executor: newFakeExec(), Tools: []tool.Tool{echoTool{}, echoTool{}}},
		"managed without desc": {Model: m, Executor: newFakeExec(), ManagedAgents: []*Agent{helper}},
		"negative":             {Model: m, Executor: newFakeExec(), MaxSteps: -1},
	} {
		if _, err := New(opts); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
}

func TestStepCallbacks(t *testing.T) {
	m := scripted.New("1. Do it.", action("a", "print 1"), action("b", "final ok"))
	var a *Agent
	var seen []string
	cb := func(_ context.Context, s Step) {
		// Memory may be read from a callback, and already holds the step.
		steps := a.Memory().Steps
		if steps[len(steps)-1] != s {
			t.Errorf("callback for %s before the step is in memory", s.Kind())
		}
		seen = append(seen, string(s.Kind()))
	}
	a, _ = newTestAgent(t, m, Options{PlanningInterval: 5, StepCallbacks: []StepCallback{cb}})
	if _, err := a.Run(context.Background(), "t", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(seen) != "[planning action action final_answer]" {
		t.Errorf("callbacks saw %v", seen)
	}
}

func TestTruncate(t *testing.T) {
	long := strings.Repeat("a", 15_000) + strings.Repeat("b", 15_000)
	got := truncate(nil, long, MaxOutputLength)
	if !strings.HasPrefix(got, strings.Repeat("a", 10_000)+"\n..._This content has been truncated to stay below 20000 characters_...\n") ||
		!strings.HasSuffix(got, strings.Repeat("b", 10_000)) || len(got) > 20_100 {
		t.Errorf("truncated to %d bytes: %q...", len(got), got[9_990:10_080])
	}
	if truncate(nil, "short", 10) != "short" {
		t.Error("short text changed")
	}
}

func TestParseCode(t *testing.T) {
	ex, err := starlarkexec.New(starlarkexec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	tagged, md := newCodeParser(DefaultCodeBlockTags, ex.CheckSyntax), newCodeParser(MarkdownCodeBlockTags, ex.CheckSyntax)
	for _, c := range []struct {
		name string
		p    codeParser
		in   string
		want string
	}{
		{"tags", tagged, "Thought: x\n<code>\nprint(1)\n</code>", "print(1)"},
		{"two blocks joined", tagged, "<code>a = 1</code> then <code>b = 2</code>", "a = 1\n\nb = 2"},
		{"fence inside tags", tagged, "<code>\n```python\nx = 1\n```\n</code>", "x = 1"},
		{"markdown fallback", tagged, "Thought:\n```py\nx = 2\n```", "x = 2"},
		{"markdown", md, "Thought:\n```python\nx = 3\n```", "x = 3"},
		{"tags fallback from markdown", md, "<code>x = 4</code>", "x = 4"},
		{"none", tagged, "just words", ""},
		{"one word", tagged, "Done.", ""},
		{"prose with parentheses", md, "I will (first) look at the data.", ""},
		{"bare code", tagged, "result = 6 * 7\nfinal_answer(result)\n", "result = 6 * 7\nfinal_answer(result)"},
		{"bare code, markdown style", md, "import math\nprint(math.pi)", "import math\nprint(math.pi)"},
		{"bare code the engine cannot lower", tagged, "x = 3j\nprint(x)", "x = 3j\nprint(x)"},
		{"empty block", tagged, "<code>\n</code>", ""},
		{"bare code, executor without a syntax check", newCodeParser(DefaultCodeBlockTags, nil), "result = 6 * 7\nfinal_answer(result)\n", ""},
		{"bare text that is not Python", tagged, "x = (1 +\nprint(x)", ""},
	} {
		got, ok := c.p.parse(c.p.complete(c.in))
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s: got %q %v, want %q", c.name, got, ok, c.want)
		}
	}
	if got := tagged.complete("<code>\nx = 1\n"); got != "<code>\nx = 1\n</code>" {
		t.Errorf("complete: %q", got)
	}
}
