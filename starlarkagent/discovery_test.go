package starlarkagent

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/tool"
	"github.com/star-agent/star-agent/tools/mcp"
	"github.com/star-agent/star-agent/tools/mcp/mcptest"
)

// specTool is a tool of a given spec that returns its name and arguments.
type specTool struct{ s tool.Spec }

func (t specTool) Spec() tool.Spec { return t.s }
func (t specTool) Call(_ context.Context, args map[string]any) (any, error) {
	return fmt.Sprintf("%s(%v)", t.s.Name, args), nil
}

// serverTools returns n tools as an MCP server of a business suite offers
// them (the fixture of prompts' discovery tests), in group "crm", plus
// get_forecast in group "weather".
func serverTools(n int) []tool.Tool {
	verbs := []string{"get", "list", "create", "update", "delete", "search", "archive", "export", "import", "count",
		"summarize", "assign", "approve", "reject", "share"}
	nouns := []string{"invoice", "customer", "order", "ticket", "employee", "project", "calendar_event", "email",
		"document", "payment", "shipment", "product", "review", "report", "dashboard", "alert", "contract",
		"meeting", "note", "timesheet"}
	var out []tool.Tool
	for i := range n - 1 {
		v, noun := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		name := v + "_" + noun
		if r := i / (len(verbs) * len(nouns)); r > 0 {
			name = fmt.Sprintf("%s_%d", name, r+1)
		}
		what := strings.ReplaceAll(noun, "_", " ")
		out = append(out, specTool{tool.Spec{
			Name:        name,
			Description: fmt.Sprintf("%s the %s with the given id. Returns a one-line summary of the %s.", strings.ToUpper(v[:1])+v[1:], what, what),
			Inputs: []tool.Input{
				{Name: "id", Type: tool.String, Description: "The " + what + "'s id."},
				{Name: "verbose", Type: tool.Boolean, Nullable: true, Description: "Whether to return every field."},
			},
			Output: tool.String,
			Group:  "crm",
		}})
	}
	return append(out, specTool{tool.Spec{
		Name:        "get_forecast",
		Description: "Returns the weather forecast for a city, day by day.",
		Inputs: []tool.Input{
			{Name: "city", Type: tool.String, Description: "The city, e.g. Paris."},
			{Name: "days", Type: tool.Integer, Nullable: true, Description: "How many days ahead (default 3)."},
		},
		Output: tool.Object,
		OutputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"city":  map[string]any{"type": "string", "description": "The city the forecast is for."},
				"days":  map[string]any{"type": "array", "items": map[string]any{"type": "object"}, "description": "One entry per day."},
				"units": map[string]any{"type": []any{"null", "string"}},
			},
			"propertyOrder": []string{"city", "days", "units"},
		},
		Group: "weather",
	}})
}

// firstPromptTokens runs one step of an agent with tools and returns the
// input tokens of its first model call, as the scripted model estimates
// them: one token per four bytes of the messages, rounded up (the
// estimate providers/scripted uses wherever a test needs token counts).
func firstPromptTokens(t testing.TB, tools []tool.Tool, threshold int) int {
	t.Helper()
	m := scripted.New(action("Done.", "final_answer(1)"))
	a, err := New(Options{Model: m, Tools: tools, ToolDiscoveryThreshold: threshold})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Run(context.Background(), "Find the invoice of order 42.", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Steps[1].(*ActionStep)
	return st.Usage.InputTokens
}

// TestDiscoveryPromptSize: with 300 tools the first prompt stays within
// twice the size of the prompt of an agent with one tool, while without
// discovery it grows with every stub.
func TestDiscoveryPromptSize(t *testing.T) {
	one := firstPromptTokens(t, serverTools(1), 0)
	sizes := map[string]int{}
	for _, n := range []int{30, 300} {
		sizes[fmt.Sprintf("%d with discovery", n)] = firstPromptTokens(t, serverTools(n), 29)
		sizes[fmt.Sprintf("%d without", n)] = firstPromptTokens(t, serverTools(n), -1)
	}
	t.Logf("first prompt, input tokens (bytes/4): 1 tool %d; %v", one, sizes)
	if got := sizes["300 with discovery"]; got > 2*one {
		t.Errorf("300 tools with discovery: %d tokens, more than twice the %d of 1 tool", got, one)
	}
	if got := sizes["300 without"]; got <= 2*one {
		t.Errorf("300 tools without discovery: %d tokens; the test shows nothing if stubs are that small", got)
	}
	// The default threshold is 30: 30 tools are shown in full, 31 are not.
	if a, b := firstPromptTokens(t, serverTools(30), 0), sizes["30 without"]; a != b {
		t.Errorf("30 tools at the default threshold: %d tokens, %d in full", a, b)
	}
}

// TestDiscoveryTools: in discovery mode the system prompt lists the tools
// by group and shows the stubs of search_tools, help and final_answer;
// the code reads the stubs with search_tools and help (given the tool or
// its name), in the Starlark engine, and their outputs are the golden
// files of package prompts.
func TestDiscoveryTools(t *testing.T) {
	m := scripted.New(
		action("Find the tool.", `print(search_tools("weather forecast for a city"))`),
		action("Read it.", "help(get_forecast)\nhelp('get_invoice')"),
		action("Call it.", `final_answer(get_forecast({"city": "Paris"}))`),
	)
	a, err := New(Options{Model: m, Tools: serverTools(300)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	sys := a.SystemPrompt()
	for _, want := range []string{"You have 300 tools", "def search_tools(query: str, limit: int | None = None) -> str:",
		"def help(tool: Any) -> None:", "def final_answer(answer: Any) -> Any:", "crm (299 tools", "weather (1 tool)", "parallel(tool, list_of_arguments)"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if strings.Contains(sys, "def get_invoice(") {
		t.Error("system prompt shows a stub it should only list")
	}
	res, err := a.Run(context.Background(), "What is the weather in Paris?", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "get_forecast(map[city:Paris])" {
		t.Errorf("output %#v", res.Output)
	}
	read := func(name string) string {
		b, err := os.ReadFile("../prompts/testdata/discovery/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	obs := func(i int) string { return res.Steps[1+i].(*ActionStep).Observation }
	if want := read("search_weather.golden"); !strings.Contains(obs(0), want) {
		t.Errorf("search_tools printed\n%s\nwant\n%s", obs(0), want)
	}
	if want := read("help_get_forecast.golden") + read("help_get_invoice.golden"); !strings.Contains(obs(1), want) {
		t.Errorf("help printed\n%s\nwant\n%s", obs(1), want)
	}
	if n := len(res.Steps[1].(*ActionStep).ToolCalls); n != 1 {
		t.Errorf("step 1 recorded %d tool calls, want 1 (search_tools)", n)
	}
}

func TestDiscoveryReservedNames(t *testing.T) {
	tools := append(serverTools(40), specTool{tool.Spec{Name: "help"}})
	if _, err := New(Options{Model: scripted.New(), Tools: tools}); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("a tool named help in discovery mode: %v", err)
	}
	// Below the threshold, help is the user's.
	a, err := New(Options{Model: scripted.New(), Tools: []tool.Tool{specTool{tool.Spec{Name: "help"}}}})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
}

// TestToolsCannotBeRebound: a step that assigns a tool fails with an error
// that says why, and the next step calls the tool as before.
func TestToolsCannotBeRebound(t *testing.T) {
	m := scripted.New(
		action("Clobber it.", "get_forecast = 1"),
		action("Use it.", `final_answer(get_forecast("Rome"))`),
	)
	a, err := New(Options{Model: m, Tools: serverTools(1)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Run(context.Background(), "x", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Steps[1].(*ActionStep)
	if st.Error == nil || !strings.Contains(st.Error.Message, "get_forecast is a tool of this agent and cannot be reassigned; use another name") {
		t.Errorf("step 1 error %+v", st.Error)
	}
	if res.Output != "get_forecast(map[city:Rome])" {
		t.Errorf("output %#v", res.Output)
	}
}

// BenchmarkFirstPromptTokens reports the input tokens (bytes/4) of the
// first prompt of an agent with 1, 30 and 300 tools, with discovery (the
// default threshold; 29 for 30 tools) and without.
func BenchmarkFirstPromptTokens(b *testing.B) {
	for _, n := range []int{1, 30, 300} {
		for _, mode := range []string{"discovery", "full"} {
			threshold := -1
			if mode == "discovery" {
				threshold = min(n-1, DefaultToolDiscoveryThreshold)
				if n == 1 {
					threshold = 0
				}
			}
			b.Run(fmt.Sprintf("tools=%d/%s", n, mode), func(b *testing.B) {
				var tokens int
				for b.Loop() {
					tokens = firstPromptTokens(b, serverTools(n), threshold)
				}
				b.ReportMetric(float64(tokens), "input_tokens")
			})
		}
	}
}

// mcpTools connects to an mcptest server (a real MCP server built with
// the official SDK) over the SDK's in-memory transport and returns its
// tools as the MCP client makes them.
func mcpTools(t testing.TB, opts mcptest.Options) []tool.Tool {
	t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := mcptest.New(opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	tools, err := mcp.SessionTools(ctx, cs, mcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// TestDiscoveryPromptSizeMCP: the ratio with the tools of a 300-tool MCP
// server against those of a 1-tool one.
func TestDiscoveryPromptSizeMCP(t *testing.T) {
	one := mcpTools(t, mcptest.Options{Only: []string{"echo"}})
	many := mcpTools(t, mcptest.Options{Only: []string{"echo"}, Tools: 299})
	if len(one) != 1 || len(many) != 300 {
		t.Fatalf("%d and %d tools, want 1 and 300", len(one), len(many))
	}
	a, b, full := firstPromptTokens(t, one, 0), firstPromptTokens(t, many, 0), firstPromptTokens(t, many, -1)
	t.Logf("first prompt, input tokens (bytes/4): 1 MCP tool %d, 300 with discovery %d (%.2fx), 300 without %d", a, b, float64(b)/float64(a), full)
	if b > 2*a {
		t.Errorf("300 MCP tools with discovery: %d tokens, more than twice the %d of 1 tool", b, a)
	}
}

// TestReservedNames: the agent's own names (final_answer, ToolError,
// parallel) are refused as tool names, and those and the tools' names as
// additional_args, with an error that says so.
func TestReservedNames(t *testing.T) {
	for _, name := range []string{"final_answer", "ToolError", "parallel"} {
		_, err := New(Options{Model: scripted.New(), Tools: []tool.Tool{specTool{tool.Spec{Name: name}}}})
		if err == nil || !strings.Contains(err.Error(), "reserved") {
			t.Errorf("a tool named %s: %v", name, err)
		}
	}
	for _, name := range []string{"final_answer", "ToolError", "parallel", "search_tools", "help", "get_forecast"} {
		a, err := New(Options{Model: scripted.New(action("Done.", "final_answer(1)")), Tools: serverTools(1)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = a.Run(context.Background(), "x", RunOptions{AdditionalArgs: map[string]any{name: 1}})
		if err == nil || !strings.Contains(err.Error(), "reserved") || !strings.Contains(err.Error(), name) {
			t.Errorf("additional_args %s: %v", name, err)
		}
		a.Close()
	}
}
