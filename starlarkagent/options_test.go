package starlarkagent

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/prompts"
	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/scripted"
)

// newLocalAgent returns an agent on the real local engine (the default
// executor unless opts has one), closed when the test ends.
func newLocalAgent(t *testing.T, model providers.Model, opts Options) *Agent {
	t.Helper()
	opts.Model = model
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// runOK runs task and fails the test, showing the memory, if the run fails.
func runOK(t *testing.T, a *Agent, task string, opts RunOptions) *RunResult {
	t.Helper()
	res, err := a.Run(context.Background(), task, opts)
	if err != nil {
		var b strings.Builder
		a.Memory().Replay(&b)
		t.Fatalf("run: %v\n%s", err, b.String())
	}
	return res
}

func TestOptionsInstructions(t *testing.T) {
	m := scripted.New(action("a", `final_answer("oui")`))
	a := newLocalAgent(t, m, Options{Instructions: "Always answer in French.\nNever use more than three words."})
	runOK(t, a, "Is the sky blue?", RunOptions{})
	sys := m.Calls()[0].Messages[0]
	want := "Further instructions from the user:\nAlways answer in French.\nNever use more than three words."
	if sys.Role != providers.RoleSystem || !strings.Contains(sys.Content, want) {
		t.Errorf("the system prompt the model read lacks the instructions:\n%s", sys.Content)
	}
	if a.SystemPrompt() != sys.Content {
		t.Error("SystemPrompt() differs from what the model read")
	}
	plain := newLocalAgent(t, scripted.New(), Options{})
	if strings.Contains(plain.SystemPrompt(), "Further instructions") {
		t.Error("the system prompt of an agent without instructions has an instructions section")
	}
}

// longOutput prints n numbered lines and then "THE END".
const longOutput = `for i in range(%d):
    print("line", i, "of the long output")
print("THE END")`

// logsOf returns the execution logs of an observation message.
func logsOf(t *testing.T, msg string) string {
	t.Helper()
	logs, ok := strings.CutPrefix(msg, "Observation:\nExecution logs:\n")
	if !ok {
		t.Fatalf("not an observation: %q", clip(msg, 300))
	}
	logs, _, ok = strings.Cut(logs, "Last output from code snippet:\n")
	if !ok {
		t.Fatalf("observation without last output: %q", clip(msg, 300))
	}
	return logs
}

// TestOptionsMaxPrintOutput: the model reads at most MaxPrintOutput
// characters of printed output, its head and its real end, with one marker
// that says how much was dropped, whether the executor cut the output
// first (with a cap larger, smaller or equal) or not at all.
func TestOptionsMaxPrintOutput(t *testing.T) {
	marker := regexp.MustCompile(`\n\[output truncated: (\d+) characters in the middle were dropped; the first (\d+) and the last (\d+) are kept\]\n`)
	for _, c := range []struct {
		name    string
		lines   int
		max     int // Options.MaxPrintOutput
		execCap int // the cap of the executor given in Options; 0: the default executor
		fake    bool
	}{
		{name: "default executor", lines: 2000, max: 1000},
		{name: "executor cap larger", lines: 5000, max: 1000, execCap: executors.DefaultMaxOutput},
		{name: "executor cap a little smaller", lines: 2000, max: 1050, execCap: 1000},
		{name: "executor cap smaller", lines: 2000, max: 5000, execCap: 1000},
		{name: "executor cap equal", lines: 2000, max: 999, execCap: 999},
		{name: "executor that does not cut", lines: 2000, max: 1000, fake: true},
		{name: "short output", lines: 3, max: 1000},
	} {
		t.Run(c.name, func(t *testing.T) {
			var full strings.Builder
			for i := range c.lines {
				fmt.Fprintf(&full, "line %d of the long output\n", i)
			}
			full.WriteString("THE END\n")
			code, final := fmt.Sprintf(longOutput, c.lines), `final_answer("ok")`
			opts := Options{MaxPrintOutput: c.max}
			switch {
			case c.fake:
				code = "print " + strings.TrimSuffix(full.String(), "\n")
				code = strings.ReplaceAll(code, "\n", "\nprint ")
				final = "final ok"
				opts.Executor = newFakeExec()
			case c.execCap > 0:
				ex, err := starlarkexec.New(starlarkexec.Options{Limits: executors.Limits{MaxOutput: c.execCap}})
				if err != nil {
					t.Fatal(err)
				}
				opts.Executor = ex
			}
			m := scripted.New(action("Print a lot.", code), action("Done.", final))
			a := newLocalAgent(t, m, opts)
			runOK(t, a, "Print a lot.", RunOptions{})
			logs := logsOf(t, lastMessage(t, m, 1).Content)
			if !strings.Contains(a.Memory().ActionSteps()[0].Observation, logs) {
				t.Error("memory and the model's input differ")
			}

			if c.lines < 10 {
				if logs != full.String() {
					t.Errorf("a short output was changed: %q", logs)
				}
				return
			}
			if n := strings.Count(logs, "truncated"); n != 1 {
				t.Fatalf("the model reads %d truncation markers, want 1:\n%s", n, logs)
			}
			mk := marker.FindStringSubmatch(logs)
			if mk == nil {
				t.Fatalf("the marker does not say what was dropped:\n%s", logs)
			}
			dropped, head, tail := atoi(t, mk[1]), atoi(t, mk[2]), atoi(t, mk[3])
			budget := c.max
			if c.execCap > 0 {
				budget = min(c.max, c.execCap)
			}
			if head+tail != budget || dropped != full.Len()-budget {
				t.Errorf("marker %q: want %d characters kept and %d dropped", mk[0], budget, full.Len()-budget)
			}
			want := full.String()[:head] + mk[0] + full.String()[full.Len()-tail:]
			if logs != want {
				t.Errorf("the model reads\n%s\nwant\n%s", logs, want)
			}
			if !strings.HasSuffix(logs, "line "+fmt.Sprint(c.lines-1)+" of the long output\nTHE END\n") {
				t.Errorf("the model does not see the end of the output")
			}
		})
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOptionsPromptsFrameMemory: a custom prompt set replaces the texts
// that frame memory, not only the system prompt.
func TestOptionsPromptsFrameMemory(t *testing.T) {
	set, err := prompts.Parse(fstest.MapFS{"mine.tmpl": {Data: []byte(
		`{{define "task"}}TASK: {{.Task}}{{end}}` +
			`{{define "step_feedback"}}{{if .Error}}FAILED: {{.Error}}{{else}}SAW: {{.Observation}}{{end}}{{end}}` +
			`{{define "execution"}}PRINTED {{.Logs}}{{end}}` +
			`{{define "parse_error"}}NO CODE IN {{.ModelOutput}}{{end}}`)}}, "*.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	m := scripted.New(action("a", `print("hi")`), "no code", action("c", `final_answer("ok")`))
	a := newLocalAgent(t, m, Options{Prompts: set})
	runOK(t, a, "Greet.", RunOptions{})
	calls := m.Calls()
	for i, want := range []string{"TASK: Greet.", "SAW: PRINTED hi\n", "FAILED: NO CODE IN no code"} {
		if got := lastMessage(t, m, i).Content; got != want {
			t.Errorf("call %d: the model read %q, want %q", i+1, got, want)
		}
	}
	mem := a.Memory()
	mem.Steps = mem.Steps[:len(mem.Steps)-2] // before the last action and the final answer
	if got := mem.Messages(); fmt.Sprint(got) != fmt.Sprint(calls[2].Messages) {
		t.Errorf("Memory().Messages() does not use the agent's prompts:\n%v\n%v", got[1:], calls[2].Messages[1:])
	}
}

// TestOptionsMarkdownCodeBlockTags runs markdown-fenced actions in the
// local engine: the system prompt and the parse error ask for fences, the
// closing fence is not a stop sequence (it is part of the opening one).
func TestOptionsMarkdownCodeBlockTags(t *testing.T) {
	m := scripted.New(
		"Thought: count.\n```python\nwords = 'a b c'.split()\nprint(len(words))\n```",
		"The answer is three.",
		"Thought: answer.\n```python\nfinal_answer(len(words) * 2)\n```\nObservation: never read",
	)
	a := newLocalAgent(t, m, Options{CodeBlockTags: MarkdownCodeBlockTags})
	res := runOK(t, a, "Count the words twice.", RunOptions{})
	if res.Output != int64(6) {
		t.Errorf("output %#v, want 6", res.Output)
	}
	if !strings.Contains(a.SystemPrompt(), "exactly one code block that starts with '```python' and ends with '```'") {
		t.Errorf("the system prompt does not ask for markdown fences:\n%s", a.SystemPrompt())
	}
	if got := m.Calls()[0].Options.StopSequences; fmt.Sprint(got) != "[Observation: Calling tools:]" {
		t.Errorf("stop sequences %q", got)
	}
	if got := lastMessage(t, m, 1).Content; got != "Observation:\nExecution logs:\n3\nLast output from code snippet:\nNone" {
		t.Errorf("observation %q", got)
	}
	if got := lastMessage(t, m, 2).Content; !strings.Contains(got, "no code block between ```python and ``` was found") ||
		!strings.Contains(got, "```python\n# Your Python code here\n```") {
		t.Errorf("the parse error does not show fences:\n%s", got)
	}
}

// TestOptionsProvideRunSummary: a managed agent that provides a run
// summary appends its steps (code, observations, errors) to its report;
// one that does not, only reports its answer.
func TestOptionsProvideRunSummary(t *testing.T) {
	for _, provide := range []bool{true, false} {
		t.Run(fmt.Sprint(provide), func(t *testing.T) {
			sub := scripted.New(action("a", `x = 6 * 7
print("x is", x)`), action("b", `y = undefined_name`), action("c", `final_answer(x)`))
			helper := newLocalAgent(t, sub, Options{Name: "helper", Description: "Computes.", ProvideRunSummary: provide})
			boss := scripted.New(action("ask", `report = helper("compute x")
print(report)`), action("done", `final_answer("ok")`))
			a := newLocalAgent(t, boss, Options{ManagedAgents: []*Agent{helper}})
			runOK(t, a, "Delegate.", RunOptions{})
			got := lastMessage(t, boss, 1).Content
			head := "Observation:\nExecution logs:\nHere is the final answer from your managed agent 'helper':\n42\n"
			summary := "\n\nFor more detail, find below a summary of this agent's work:\n<summary_of_work>\n" +
				"Step 1:\nx = 6 * 7\nprint(\"x is\", x)\nExecution logs:\nx is 42\nLast output from code snippet:\nNone\n" +
				"Step 2:\ny = undefined_name\nError: "
			if !strings.HasPrefix(got, head) {
				t.Fatalf("the manager read %q", got)
			}
			if has := strings.Contains(got, summary); has != provide {
				t.Errorf("ProvideRunSummary %v, summary in the report %v:\n%s", provide, has, got)
			}
			if provide && !strings.Contains(got, "is not defined\nStep 3:\nfinal_answer(x)\nExecution logs:\nLast output from code snippet:\n42\n</summary_of_work>\n") {
				t.Errorf("the summary does not end with the last step:\n%s", got)
			}
		})
	}
}

// TestOptionsManagedAdditionalArgs: values a manager's code passes as
// additional_args are variables of the team member's code, and are listed
// to its model after the task.
func TestOptionsManagedAdditionalArgs(t *testing.T) {
	sub := scripted.New(action("use them", `final_answer(sum(numbers) * factor)`))
	helper := newLocalAgent(t, sub, Options{Name: "helper", Description: "Adds numbers."})
	boss := scripted.New(action("ask", `total = helper("add them", additional_args={"numbers": [1, 2, 3], "factor": 10})
print(total)`), action("done", `final_answer(total)`))
	a := newLocalAgent(t, boss, Options{ManagedAgents: []*Agent{helper}})
	res := runOK(t, a, "Delegate.", RunOptions{})
	if !strings.HasSuffix(fmt.Sprint(res.Output), "\n60") {
		t.Errorf("output %q, want the team member's answer 60", res.Output)
	}
	task := lastMessage(t, sub, 0).Content
	if !strings.HasSuffix(task, "\nYou have been provided with these additional arguments, that you can access directly using the keys as variables:\n{'factor': 10, 'numbers': [1, 2, 3]}") {
		t.Errorf("the team member's task %q", task)
	}
	calls := a.Memory().ActionSteps()[0].ToolCalls
	if len(calls) != 1 || fmt.Sprint(calls[0].Arguments["additional_args"]) != "map[factor:10 numbers:[1 2 3]]" {
		t.Errorf("tool calls %+v", calls)
	}
}

// TestOptionsCloseReleasesExecutors: Close closes the agent's executor,
// the default one or one given in Options, and its team members'.
func TestOptionsCloseReleasesExecutors(t *testing.T) {
	memberExec, err := starlarkexec.New(starlarkexec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	member, err := New(Options{Model: scripted.New(), Name: "helper", Description: "Helps.", Executor: memberExec})
	if err != nil {
		t.Fatal(err)
	}
	m := scripted.New(action("a", `x = 1`), "The answer is 1.", action("b", `final_answer(x)`))
	a, err := New(Options{Model: m, ManagedAgents: []*Agent{member}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), "t", RunOptions{MaxSteps: 1}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := memberExec.Execute(context.Background(), "1"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("the team member's executor still runs code after Close: %v", err)
	}
	// The default executor is closed: the next run's step fails on it.
	res, err := a.Run(context.Background(), "t", RunOptions{Resume: true})
	st := a.Memory().ActionSteps()
	if err == nil || res.State != StateError || st[len(st)-1].Error == nil || st[len(st)-1].Error.Kind != ErrorExecutor ||
		!strings.Contains(err.Error(), "closed") {
		t.Errorf("a run after Close: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// TestOptionsCancelStopsManagedAgent: cancelling the manager's context
// stops a team member waiting for its model, promptly, and both runs end
// with the cancellation. The manager's code runs in the fake executor,
// which waits for the call to return (the local engine gives up on it
// after a short grace): the manager can only stop promptly if the member
// does. (It also keeps clear of a data race of the local engine when an
// execution is cancelled: mon.ctxErr written in Execute while the watching
// goroutine reads it in monitor.reason.)
func TestOptionsCancelStopsManagedAgent(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	subEnded := make(chan error, 1)
	sub := scripted.Func(func(ctx context.Context, _ []providers.Message, _ providers.GenerateOptions) (*providers.Message, error) {
		close(started)
		select {
		case <-ctx.Done():
		case <-release: // the test failed; let the agents close
		}
		subEnded <- ctx.Err()
		return nil, errors.New("released")
	})
	helper := newLocalAgent(t, sub, Options{Name: "helper", Description: "Slow."})
	boss := scripted.New(action("ask", "call helper think hard\nfinal should not get here"))
	a := newLocalAgent(t, boss, Options{ManagedAgents: []*Agent{helper}, Executor: newFakeExec()})
	t.Cleanup(func() { close(release) }) // before the agents close
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	var res *RunResult
	var err error
	go func() {
		defer close(done)
		res, err = a.Run(ctx, "Delegate.", RunOptions{})
	}()
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the team member's model was never called")
	}
	cancel()
	// The team member's model answers only when the test ends: the
	// bounds below catch a run that waits for it, not a slow machine.
	const hung = 30 * time.Second
	select {
	case <-done:
	case <-time.After(hung):
		t.Fatal("the run did not stop after the cancellation")
	}
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrInterrupted) || res.State != StateError {
		t.Fatalf("state %s err %v", res.State, err)
	}
	// The manager's executor may give up waiting for the team member's
	// call before the member's run has wound down: wait for it.
	select {
	case err := <-subEnded:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the team member's model call ended with %v", err)
		}
	case <-time.After(hung):
		t.Fatal("the team member's model call did not end after the cancellation")
	}
	for deadline := time.Now().Add(hung); ; time.Sleep(time.Millisecond) {
		sst := helper.Memory().ActionSteps()
		if len(sst) == 1 && sst[0].Error != nil && sst[0].Error.Kind == ErrorInterrupted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the team member's steps: %+v", sst)
		}
	}
	st := a.Memory().ActionSteps()
	if len(st) != 1 || st[0].Error == nil || st[0].Error.Kind != ErrorInterrupted || st[0].IsFinal {
		t.Errorf("the manager's steps: %+v", st[0])
	}
}
