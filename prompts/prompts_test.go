package prompts

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/star-agent/star-agent/tool"
)

func TestStub(t *testing.T) {
	spec := tool.Spec{
		Name:        "search",
		Description: "Searches the web.\nReturns the top results.",
		Inputs: []tool.Input{
			{Name: "query", Type: tool.String, Description: "What to search."},
			{Name: "limit", Type: tool.Integer, Description: "How many results.", Nullable: true},
			{Name: "mode", Type: tool.String, Description: "Search mode.", Nullable: true, Schema: map[string]any{"enum": []any{"fast", "deep"}}},
		},
		Output: tool.Array,
	}
	want := `def search(query: str, limit: int | None = None, mode: str | None = None) -> list:
    """Searches the web.
    Returns the top results.

    Args:
        query: What to search.
        limit: How many results.
        mode: Search mode. One of: 'fast', 'deep'.
    """`
	if got := Stub(spec); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRenderEveryTemplate(t *testing.T) {
	s := Default()
	data := Data{
		Tools:             []tool.Spec{{Name: "final_answer", Description: "Ends.", Output: tool.Any}},
		ManagedAgents:     []Agent{{Name: "researcher", Description: "Finds facts."}},
		AuthorizedImports: []string{"math", "re"},
		CodeOpen:          "<code>", CodeClose: "</code>",
		Instructions: "Answer in French.", Task: "Do it.", RemainingSteps: 3, Name: "researcher", FinalAnswer: "42",
		Observation: "Execution logs:\n", Logs: "1\n", Notes: []string{"restarted"}, Error: "boom",
		Steps: []StepSummary{{Number: 1}},
	}
	for _, name := range names {
		out, err := s.Render(name, data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if strings.Contains(out, "<no value>") || out == "" {
			t.Errorf("%s rendered %q", name, out)
		}
	}
	sys, _ := s.Render(SystemPrompt, data)
	for _, want := range []string{"def final_answer() -> Any:", "def researcher(task: str, additional_args: dict | None = None) -> str:", "math, re", "Answer in French.", "ends with '</code>'"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
}

func TestParseOverridesOneTemplate(t *testing.T) {
	fsys := fstest.MapFS{"system.tmpl": {Data: []byte("Be brief. Tools: {{range .Tools}}{{.Name}} {{end}}")}}
	s, err := Parse(fsys, "*.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Render(SystemPrompt, Data{Tools: []tool.Spec{{Name: "a"}, {Name: "b"}}})
	if err != nil || out != "Be brief. Tools: a b" {
		t.Errorf("got %q, %v", out, err)
	}
	if out, err := s.Render(ManagedAgentReply, Data{Name: "x", FinalAnswer: "y"}); err != nil || !strings.Contains(out, "'x'") {
		t.Errorf("default template not kept: %q %v", out, err)
	}
}

// TestExactTexts pins the framing of memory to the character: models and
// recorded sessions (which replay by hashing the messages) rely on it.
func TestExactTexts(t *testing.T) {
	s := Default()
	for _, c := range []struct {
		name string
		data Data
		want string
	}{
		{Task, Data{Task: "Do it.\n"}, "New task:\nDo it.\n"},
		{Task, Data{Task: "Do it.", AdditionalArgs: "{'n': 1}"}, "New task:\nDo it.\nYou have been provided with these additional arguments, that you can access directly using the keys as variables:\n{'n': 1}"},
		{StepFeedback, Data{Observation: "Execution logs:\nx"}, "Observation:\nExecution logs:\nx"},
		{StepFeedback, Data{Error: "bad"}, "Error:\nbad\nNow let's retry: take care not to repeat previous errors! If you have retried several times, try a completely different approach.\n"},
		{StepFeedback, Data{Observation: "o", Error: "e"}, "Observation:\no\nError:\ne\nNow let's retry: take care not to repeat previous errors! If you have retried several times, try a completely different approach.\n"},
		{StepFeedback, Data{}, ""},
		{Execution, Data{Logs: "1", LastOutput: "None"}, "Execution logs:\n1\nLast output from code snippet:\nNone"},
		{Execution, Data{Logs: "1\n", LastOutput: "'a'", Notes: []string{"x", "y"}}, "Execution logs:\n1\nLast output from code snippet:\n'a'\nNote: x\nNote: y"},
		{Execution, Data{LastOutput: "2"}, "Execution logs:\nLast output from code snippet:\n2"},
		{FailedExecution, Data{Logs: "1\n", Notes: []string{"x"}}, "Execution logs:\n1\n\nNote: x"},
		{FailedExecution, Data{Notes: []string{"x", "y"}}, "Note: x\nNote: y"},
		{FailedExecution, Data{}, ""},
		{OutputTruncated, Data{Dropped: 7, Head: 2, Tail: 1}, "\n[output truncated: 7 characters in the middle were dropped; the first 2 and the last 1 are kept]\n"},
		{ValueTruncated, Data{MaxLength: 9}, "\n..._This content has been truncated to stay below 9 characters_...\n"},
		{FinalAnswerRejected, Data{Check: 2, Answer: "'41'", Reason: "no"}, "Check 2 of the final answer failed: the answer '41' was rejected: no"},
		{Plan, Data{Plan: "1. Go."}, "Here are the facts I know and the plan of action that I will follow to solve the task:\n```\n1. Go.\n```"},
		{UpdatedPlan, Data{Task: "t", Plan: "1. Go."}, "I still need to solve the task I was given:\n```\nt\n```\n\nHere are the facts I know and my new/updated plan of action to solve the task:\n```\n1. Go.\n```"},
		{AfterPlan, Data{}, "Now proceed and carry out this plan."},
		{RunSummary, Data{Steps: []StepSummary{{Number: 1, Code: "c", Observation: "o\n", Error: "e"}, {Number: 2, Error: "p"}}},
			"\n\nFor more detail, find below a summary of this agent's work:\n<summary_of_work>\nStep 1:\nc\no\n\nError: e\nStep 2:\nError: p\n</summary_of_work>"},
		{ManagedAgentFailed, Data{Name: "helper", Error: "boom"}, "team member helper failed: boom"},
	} {
		got, err := s.RenderExact(c.name, c.data)
		if err != nil || got != c.want {
			t.Errorf("%s %+v:\ngot  %q %v\nwant %q", c.name, c.data, got, err, c.want)
		}
	}
	got, _ := s.RenderExact(ParseError, Data{CodeOpen: "```python", CodeClose: "```", ModelOutput: "It is 4."})
	want := "Your code snippet is invalid: no code block between ```python and ``` was found in it.\nHere is your code snippet:\nIt is 4.\nMake sure to include code with the correct pattern, for instance:\nThought: Your thoughts\n```python\n# Your Python code here\n```\nRemember to end your code with ```."
	if got != want {
		t.Errorf("parse error:\n%q\nwant\n%q", got, want)
	}
}

func TestParseRedefinesOneText(t *testing.T) {
	fsys := fstest.MapFS{"mine.tmpl": {Data: []byte(`{{define "step_feedback"}}{{if .Error}}Failed: {{.Error}}{{else}}Saw: {{.Observation}}{{end}}{{end}}`)}}
	s, err := Parse(fsys, "*.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.RenderExact(StepFeedback, Data{Error: "x"}); got != "Failed: x" {
		t.Errorf("redefined text: %q", got)
	}
	if got, _ := s.RenderExact(AfterPlan, Data{}); got != "Now proceed and carry out this plan." {
		t.Errorf("the other texts are not kept: %q", got)
	}
	if got, _ := Default().RenderExact(StepFeedback, Data{Error: "x"}); !strings.HasPrefix(got, "Error:\nx\n") {
		t.Errorf("the default set changed: %q", got)
	}
}

func TestParseRefusesUnknownField(t *testing.T) {
	fsys := fstest.MapFS{"mine.tmpl": {Data: []byte(`{{define "task"}}{{.Tsk}}{{end}}`)}}
	if _, err := Parse(fsys, "*.tmpl"); err == nil || !strings.Contains(err.Error(), "Tsk") {
		t.Errorf("err = %v, want a refusal naming the field", err)
	}
}
