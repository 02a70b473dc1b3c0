package starlarkagent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/tool"
	"github.com/star-agent/star-agent/tools/mcp/mcptest"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	echo := tool.MustNew("echo_city", "Echoes the city.\nSecond line.", func(_ context.Context, in cityArgs) (string, error) { return in.City, nil })
	server := mcpTools(t, mcptest.Options{Only: []string{"add"}})
	member, err := New(Options{Model: scripted.New(), Name: "helper", Description: "Helps.", ActionType: ActionToolCalling, Tools: []tool.Tool{echo}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{
		Model: &scripted.Model{ID: "gpt-test"}, Name: "boss", Description: "Leads.",
		Tools: append([]tool.Tool{echo}, server...), ManagedAgents: []*Agent{member},
		MaxSteps: 7, PlanningInterval: 3, Instructions: "Be brief.", AuthorizedImports: []string{"math"},
		Limits:        executors.Limits{Timeout: 1500 * time.Millisecond, MaxMemory: 1 << 20},
		CodeBlockTags: MarkdownCodeBlockTags, ProvideRunSummary: true, StructuredOutputs: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	dir := t.TempDir()
	if err := a.Save(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, AgentFile))
	if err != nil {
		t.Fatal(err)
	}
	var j map[string]any
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	if j["model"] != "gpt-test" || j["max_steps"] != 7.0 || j["action_type"] != "code" || !strings.Contains(string(b), `"timeout": "1.5s"`) ||
		!strings.Contains(string(b), `"group": "mcptest"`) || !strings.Contains(string(b), `"managed_agents": [`) {
		t.Errorf("agent file:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "managed_agents", "helper", AgentFile)); err != nil {
		t.Fatal(err)
	}

	m := scripted.New("1. Echo.", "```python\nfinal_answer(echo_city('Oslo'))\n```")
	loaded, err := Load(dir, LoadOptions{Model: m, Tools: append([]tool.Tool{echo}, server...)})
	if err != nil {
		t.Fatal(err)
	}
	defer loaded.Close()
	if loaded.SystemPrompt() != a.SystemPrompt() || loaded.Name() != "boss" {
		t.Errorf("system prompt changed through Save and Load")
	}
	// Saving the loaded agent writes the same files, but for the model.
	dir2 := t.TempDir()
	if err := loaded.Save(dir2); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{AgentFile, filepath.Join("managed_agents", "helper", AgentFile)} {
		x, _ := os.ReadFile(filepath.Join(dir, f))
		y, _ := os.ReadFile(filepath.Join(dir2, f))
		if strings.Replace(string(x), "gpt-test", "scripted", 1) != string(y) {
			t.Errorf("%s differs after a round trip:\n%s\n---\n%s", f, x, y)
		}
	}
	res, err := loaded.Run(context.Background(), "echo", RunOptions{})
	if err != nil || res.Output != "Oslo" {
		t.Fatalf("loaded agent: output %#v err %v", res.Output, err)
	}
}

func TestLoadErrors(t *testing.T) {
	echo := tool.MustNew("echo_city", "Echoes.", func(_ context.Context, in cityArgs) (string, error) { return in.City, nil })
	a, err := New(Options{Model: scripted.New(), Tools: []tool.Tool{echo}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	dir := t.TempDir()
	if err := a.Save(dir); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		lo   LoadOptions
		want string
	}{
		{dir, LoadOptions{Tools: []tool.Tool{echo}}, `saved with model "scripted": give LoadOptions.Model`},
		{dir, LoadOptions{Model: scripted.New()}, `uses tool "echo_city": give it in LoadOptions.Tools`},
		{t.TempDir(), LoadOptions{Model: scripted.New()}, "has no agent.json"},
	} {
		if _, err := Load(c.dir, c.lo); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, AgentFile), []byte(`{"version": 1, "name": "x", "nmae": "typo"}`), 0o644)
	if _, err := Load(bad, LoadOptions{Model: scripted.New()}); err == nil || !strings.Contains(err.Error(), `unknown field "nmae"`) {
		t.Errorf("typo: err %v", err)
	}
}

func TestStructuredOutputs(t *testing.T) {
	m := scripted.New(
		`{"thought": "Compute.", "code": "x = 6 * 7\nprint(x)"}`,
		"```json\n{\"thought\": \"Done.\", \"code\": \"final_answer(x)\"}\n```",
	)
	a, err := New(Options{Model: m, StructuredOutputs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Run(context.Background(), "compute", RunOptions{})
	if err != nil || res.Output != int64(42) {
		t.Fatalf("output %#v err %v", res.Output, err)
	}
	opts := m.Calls()[0].Options
	if opts.ResponseSchema == nil || opts.ResponseSchema.Schema["required"] == nil {
		t.Errorf("no response schema sent: %+v", opts)
	}
	for _, s := range opts.StopSequences {
		if s == "</code>" {
			t.Errorf("stop sequences %q cut the JSON", opts.StopSequences)
		}
	}
	if st := a.Memory().ActionSteps()[0]; st.Code != "x = 6 * 7\nprint(x)" {
		t.Errorf("code %q", st.Code)
	}

	// A provider that ignores the schema: the usual format still works,
	// and JSON without code is a format error the model reads.
	m = scripted.New(`{"thought": "no code"}`, "Thought: fine.\n<code>\nfinal_answer('plain')\n</code>")
	b, err := New(Options{Model: m, StructuredOutputs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	res, err = b.Run(context.Background(), "compute", RunOptions{})
	if err != nil || res.Output != "plain" {
		t.Fatalf("fallback: output %#v err %v", res.Output, err)
	}
	if st := b.Memory().ActionSteps()[0]; st.Error == nil || st.Error.Kind != ErrorParse {
		t.Errorf("JSON without code: step error %+v", st.Error)
	}
}
