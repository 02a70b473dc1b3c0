package prompts

import (
	"strings"
	"testing"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/tool"
)

// systemData is what a typical agent renders its system prompt with: a
// search tool without an output schema, one with a schema, final_answer,
// a team member and the default imports.
func systemData() Data {
	return Data{
		Tools: []tool.Spec{
			{Name: "web_search", Description: "Searches the web and returns the top results as text.",
				Inputs: []tool.Input{{Name: "query", Type: tool.String, Description: "What to search for."}}, Output: tool.String},
			forecastSpec(),
			{Name: "final_answer", Description: "Gives the final answer to the task.",
				Inputs: []tool.Input{{Name: "answer", Type: tool.Any, Description: "The final answer."}}, Output: tool.Any},
		},
		ManagedAgents:     []Agent{{Name: "researcher", Description: "Finds facts on the web and reports them with their sources."}},
		AuthorizedImports: executors.NewImportPolicy(nil, nil).Authorized,
		CodeOpen:          "<code>", CodeClose: "</code>",
	}
}

// TestSystemPromptGolden: the system prompt as a model reads it, in full
// (go test ./prompts/ -run TestSystemPromptGolden -update rewrites it).
func TestSystemPromptGolden(t *testing.T) {
	got, err := Default().Render(SystemPrompt, systemData())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("system prompt: %d bytes, about %d tokens (bytes/4)", len(got), (len(got)+3)/4)
	golden(t, "../system_prompt.golden", got+"\n")

	// Alone, with its tools listed by group (tool discovery) and parallel().
	d := systemData()
	d.ManagedAgents = nil
	d.Tools = d.Tools[2:]
	d.ToolListing, d.ToolCount, d.ListDetail, d.Parallel = "weather (2 tools): get_forecast, get_alerts\n", 2, ListNames, true
	got, err = Default().Render(SystemPrompt, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("without team members, with discovery: %d bytes, about %d tokens (bytes/4)", len(got), (len(got)+3)/4)
	golden(t, "../system_prompt_alone.golden", got+"\n")
}

// TestSystemPromptAnyModule: an import policy that authorizes "*" reads as
// "any module", not as a module named "*".
func TestSystemPromptAnyModule(t *testing.T) {
	d := systemData()
	d.AuthorizedImports = executors.NewImportPolicy([]string{"*"}, nil).Authorized
	got, err := Default().Render(SystemPrompt, d)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "*,") || strings.Contains(got, "collections") {
		t.Errorf("'*' rendered as a module list:\n%s", got)
	}
	if !strings.Contains(got, "You may import any module.") {
		t.Errorf("'*' not rendered as any module:\n%s", got)
	}
	d.AuthorizedImports = []string{"math", "re"}
	got, _ = Default().Render(SystemPrompt, d)
	if !strings.Contains(got, "You may import only these modules: math, re.") {
		t.Errorf("a list of modules not rendered as such:\n%s", got)
	}
}

// TestSystemPromptRules: the rules and worked examples a model relies on
// are there, and nothing in the prompt is addressed to the operator.
func TestSystemPromptRules(t *testing.T) {
	got, err := Default().Render(SystemPrompt, systemData())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"never use a variable you have not defined",
		"returns a dict",
		"print it",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if n := strings.Count(got, "\nTask: "); n < 7 {
		t.Errorf("%d worked examples, want at least 7", n)
	}
	if strings.Contains(got, "--") && !strings.Contains(got, "---") {
		t.Errorf("system prompt names a flag")
	}
}
