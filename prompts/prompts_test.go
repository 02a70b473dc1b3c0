package prompts

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/star-agent/star-agent/starlarkagent/tool"
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
