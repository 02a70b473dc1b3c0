package starlarkagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/tool"
	"github.com/star-agent/star-agent/tools/mcp/mcptest"
)

// call is a native tool call with JSON arguments.
func call(id, name, args string) providers.ToolCall {
	return providers.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

type cityArgs struct {
	City string `json:"city" jsonschema:"The city."`
}

// rendezvous returns two tools that each wait, until ctx ends, for the
// other to have started: they only both return if they run concurrently.
func rendezvous() (tool.Tool, tool.Tool) {
	a, b := make(chan struct{}), make(chan struct{})
	mk := func(name string, mine, other chan struct{}, answer string) tool.Tool {
		return tool.MustNew(name, "Looks up the "+name+" of a city.", func(ctx context.Context, in cityArgs) (string, error) {
			close(mine)
			select {
			case <-other:
				return answer + " in " + in.City, nil
			case <-ctx.Done():
				return "", fmt.Errorf("%s ran alone: %w", name, ctx.Err())
			}
		})
	}
	return mk("get_weather", a, b, "sunny"), mk("get_time", b, a, "noon")
}

func TestToolCallingTwoCallsInOneMessage(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			weather, clock := rendezvous()
			m := &scripted.Model{Responses: []scripted.Response{
				{Content: "I need both.", ToolCalls: []providers.ToolCall{
					call("w1", "get_weather", `{"city":"Paris"}`),
					call("t1", "get_time", `{"city":"Oslo"}`),
				}},
				{ToolCalls: []providers.ToolCall{call("f1", "final_answer", `{"answer": 42}`)}},
			}}
			a, err := New(Options{Model: m, ActionType: ActionToolCalling, Tools: []tool.Tool{weather, clock}})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var res *RunResult
			var events []ToolCall
			var text strings.Builder
			if stream {
				for e := range a.Stream(ctx, "weather and time", RunOptions{}) {
					switch e := e.(type) {
					case *ToolCallEvent:
						events = append(events, e.Call)
					case *ModelDelta:
						text.WriteString(e.Content)
					case *RunEnd:
						res = e.Result
					}
				}
				if len(events) != 3 || !strings.Contains(text.String(), "I need both.") {
					t.Errorf("streamed %d tool call events and text %q", len(events), text.String())
				}
			} else {
				res, _ = a.Run(ctx, "weather and time", RunOptions{})
			}
			if res.Err != nil || res.State != StateSuccess || res.Output != int64(42) {
				t.Fatalf("state %s output %#v err %v", res.State, res.Output, res.Err)
			}
			calls := m.Calls()
			// The first request offers the tools with their schemas.
			defs := calls[0].Options.Tools
			if len(defs) != 3 || defs[0].Name != "get_weather" || defs[2].Name != "final_answer" || calls[0].Options.ToolChoice != "required" {
				t.Fatalf("tool definitions %+v", defs)
			}
			props := defs[0].Parameters["properties"].(map[string]any)
			if city := props["city"].(map[string]any); city["type"] != "string" || fmt.Sprint(defs[0].Parameters["required"]) != "[city]" {
				t.Errorf("get_weather schema %v", defs[0].Parameters)
			}
			// The second request answers each call by its ID, in order.
			msgs := calls[1].Messages
			tail := msgs[len(msgs)-3:]
			if tail[0].Role != providers.RoleAssistant || len(tail[0].ToolCalls) != 2 || tail[0].Content != "I need both." {
				t.Fatalf("assistant message %+v", tail[0])
			}
			if tail[1].Role != providers.RoleTool || tail[1].ToolCallID != "w1" || tail[1].Content != "sunny in Paris" ||
				tail[2].ToolCallID != "t1" || tail[2].Content != "noon in Oslo" {
				t.Errorf("tool messages %+v %+v", tail[1], tail[2])
			}
			st := a.Memory().ActionSteps()
			if len(st) != 2 || len(st[0].ToolCalls) != 2 || st[0].ToolCalls[0].ID != "w1" || st[0].ToolCalls[0].Arguments["city"] != "Paris" || !st[1].IsFinal {
				t.Errorf("steps %+v", st)
			}
			if want := "get_weather(city='Paris')\nsunny in Paris\n"; !strings.HasPrefix(st[0].Observation, want) {
				t.Errorf("observation %q, want it to start with %q", st[0].Observation, want)
			}
		})
	}
}

func TestToolCallingErrorsGoBackToTheModel(t *testing.T) {
	fail := tool.MustNew("lookup", "Looks a city up.", func(ctx context.Context, in cityArgs) (string, error) {
		return "", errors.New("city " + in.City + " not found")
	})
	m := &scripted.Model{Responses: []scripted.Response{
		{ToolCalls: []providers.ToolCall{
			call("a", "lookup", `{"city":"Atlantis"}`),
			call("b", "lookup", `{"town":"Paris"}`),
			call("c", "lookup", `{"city":`),
		}},
		{Content: "No tool this time."},
		{ToolCalls: []providers.ToolCall{call("d", "final_answer", `{"answer":"gave up"}`)}},
	}}
	a, err := New(Options{Model: m, ActionType: ActionToolCalling, Tools: []tool.Tool{fail}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Run(context.Background(), "find", RunOptions{})
	if err != nil || res.Output != "gave up" {
		t.Fatalf("output %#v err %v", res.Output, err)
	}
	msgs := m.Calls()[1].Messages
	tools := msgs[len(msgs)-3:]
	for i, want := range []string{
		"Error: city Atlantis not found\n",
		"Error: lookup() got an unexpected keyword argument 'town'\n",
		"Error: the arguments of lookup are not a JSON object ({\"city\":): unexpected EOF\n",
	} {
		if tools[i].Role != providers.RoleTool || !strings.HasPrefix(tools[i].Content, want) {
			t.Errorf("tool message %d: %q, want it to start with %q", i, tools[i].Content, want)
		}
	}
	last := m.Calls()[2].Messages
	if got := last[len(last)-1]; got.Role != providers.RoleUser || !strings.Contains(got.Content, "called no tool") {
		t.Errorf("after a text-only answer the model read %+v", got)
	}
}

func TestToolCallingFinalAnswerCheck(t *testing.T) {
	m := &scripted.Model{Responses: []scripted.Response{
		{ToolCalls: []providers.ToolCall{call("a", "final_answer", `{"answer":"short"}`)}},
		{ToolCalls: []providers.ToolCall{call("b", "final_answer", `{"answer":"a longer answer"}`)}},
	}}
	check := func(_ context.Context, ans any, _ *Memory) error {
		if len(ans.(string)) < 8 {
			return errors.New("too short")
		}
		return nil
	}
	a, err := New(Options{Model: m, ActionType: ActionToolCalling, FinalAnswerChecks: []FinalAnswerCheck{check}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Run(context.Background(), "answer", RunOptions{})
	if err != nil || res.Output != "a longer answer" {
		t.Fatalf("output %#v err %v", res.Output, err)
	}
	msgs := m.Calls()[1].Messages
	if got := msgs[len(msgs)-1]; got.Role != providers.RoleUser || !strings.Contains(got.Content, "too short") {
		t.Errorf("the rejection was not read: %+v", got)
	}
}

func TestToolCallingMCPTools(t *testing.T) {
	tools := mcpTools(t, mcptest.Options{Only: []string{"add", "get-weather", "fail"}})
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Spec().Name)
	}
	m := &scripted.Model{Responses: []scripted.Response{
		{ToolCalls: []providers.ToolCall{
			call("a", "add", `{"a": 2, "b": 40}`),
			call("w", "get_weather", `{"city": "Paris"}`),
			call("f", "fail", `{"message": "broken on purpose"}`),
		}},
		{ToolCalls: []providers.ToolCall{call("z", "final_answer", `{"answer": "done"}`)}},
	}}
	a, err := New(Options{Model: m, ActionType: ActionToolCalling, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Run(context.Background(), "use the server", RunOptions{}); err != nil {
		t.Fatalf("%v (tools %v)", err, names)
	}
	msgs := m.Calls()[1].Messages
	got := msgs[len(msgs)-3:]
	if !strings.Contains(got[0].Content, "'sum': 42") {
		t.Errorf("add answered %q", got[0].Content)
	}
	if !strings.Contains(got[1].Content, "Paris") {
		t.Errorf("get_weather answered %q", got[1].Content)
	}
	if !strings.HasPrefix(got[2].Content, "Error: ") || !strings.Contains(got[2].Content, "broken on purpose") {
		t.Errorf("fail answered %q", got[2].Content)
	}
	// The MCP schema reaches the model.
	for _, d := range m.Calls()[0].Options.Tools {
		if d.Name == "add" && fmt.Sprint(d.Parameters["required"]) != "[a b]" {
			t.Errorf("add definition %v", d.Parameters)
		}
	}
}

func TestToolCallingManagedAgent(t *testing.T) {
	member, err := New(Options{
		Model:       scripted.New("Thought: easy.\n<code>\nfinal_answer(6 * 7)\n</code>"),
		Name:        "calculator",
		Description: "Computes things.",
	})
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted.Model{Responses: []scripted.Response{
		{ToolCalls: []providers.ToolCall{call("c", "calculator", `{"task": "six times seven"}`)}},
		{ToolCalls: []providers.ToolCall{call("f", "final_answer", `{"answer": "42"}`)}},
	}}
	a, err := New(Options{Model: m, ActionType: ActionToolCalling, ManagedAgents: []*Agent{member}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Run(context.Background(), "ask the calculator", RunOptions{})
	if err != nil || res.Output != "42" {
		t.Fatalf("output %#v err %v", res.Output, err)
	}
	if !strings.Contains(a.SystemPrompt(), "calculator: Computes things.") {
		t.Errorf("system prompt does not list the team member:\n%s", a.SystemPrompt())
	}
	msgs := m.Calls()[1].Messages
	if got := msgs[len(msgs)-1]; got.Role != providers.RoleTool || !strings.Contains(got.Content, "42") {
		t.Errorf("the member's report: %+v", got)
	}
	st := a.Memory().ActionSteps()[0]
	if st.ManagedUsage.OutputTokens == 0 || res.TokenUsage.OutputTokens <= st.Usage.OutputTokens {
		t.Errorf("managed usage %+v, run usage %+v", st.ManagedUsage, res.TokenUsage)
	}
}

func TestToolCallingMemoryJSONRoundTrip(t *testing.T) {
	m := &scripted.Model{Responses: []scripted.Response{
		{Content: "Both.", ToolCalls: []providers.ToolCall{call("x", "final_answer", `{"answer": [1, 2]}`)}},
	}}
	a, err := New(Options{Model: m, ActionType: ActionToolCalling})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Run(context.Background(), "t", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(a.Memory())
	if err != nil {
		t.Fatal(err)
	}
	var back Memory
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	before, after := a.Memory().Messages(), back.Messages()
	// encoding/json compacts raw arguments.
	before[2].ToolCalls[0].Arguments = json.RawMessage(`{"answer":[1,2]}`)
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("messages changed through JSON:\n%v\n%v", before, after)
	}
	if err := scripted.Check(append(after, providers.Message{Role: providers.RoleUser, Content: "next"}), providers.GenerateOptions{}); err != nil {
		t.Errorf("memory read back is not a valid conversation: %v", err)
	}
}

func TestActionTypeRefused(t *testing.T) {
	if _, err := New(Options{Model: scripted.New(), ActionType: "json"}); err == nil || !strings.Contains(err.Error(), `"json"`) {
		t.Errorf("err %v", err)
	}
}

func TestToolCallingPlanningAndMaxSteps(t *testing.T) {
	echo := tool.MustNew("echo", "Echoes.", func(_ context.Context, in cityArgs) (string, error) { return in.City, nil })
	m := &scripted.Model{Responses: []scripted.Response{
		{Content: "1. Echo Paris."},
		{Content: "Echo first.", ToolCalls: []providers.ToolCall{call("e1", "echo", `{"city":"Paris"}`)}},
		{Content: "1. Answer now."},
		{ToolCalls: []providers.ToolCall{call("e2", "echo", `{"city":"Rome"}`)}},
		{Content: "Paris and Rome."},
	}}
	a, err := New(Options{Model: m, ActionType: ActionToolCalling, Tools: []tool.Tool{echo}, PlanningInterval: 1, MaxSteps: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Run(context.Background(), "echo", RunOptions{})
	if err != nil || res.State != StateMaxSteps || res.Output != "Paris and Rome." {
		t.Fatalf("state %s output %#v err %v", res.State, res.Output, err)
	}
	calls := m.Calls()
	// The plan update reads the calls and their answers; calls outside a
	// step offer the tools with ToolChoice none, as APIs that check a
	// history of tool calls against the tools require.
	update := calls[2]
	if update.Options.ToolChoice != "none" || len(update.Options.Tools) != 2 {
		t.Errorf("plan update options %+v", update.Options)
	}
	found := false
	for _, msg := range update.Messages {
		if msg.Role == providers.RoleTool && msg.ToolCallID == "e1" && msg.Content == "Paris" {
			found = true
		}
		if strings.Contains(msg.Content, "Echo first.") {
			t.Errorf("the plan update read the thought: %q", msg.Content)
		}
	}
	if !found {
		t.Errorf("the plan update did not read the call's answer: %+v", update.Messages)
	}
	if final := calls[4]; final.Options.ToolChoice != "none" {
		t.Errorf("final answer options %+v", final.Options)
	}
}

// TestToolCallingManyCalls: an answer with far too many calls runs at most
// MaxToolThreads at once and MaxToolCallsPerStep in all; every call is
// answered.
func TestToolCallingManyCalls(t *testing.T) {
	var mu sync.Mutex
	running, most, ran := 0, 0, 0
	slow := tool.MustNew("slow", "Takes a while.", func(ctx context.Context, in cityArgs) (string, error) {
		mu.Lock()
		running++
		ran++
		most = max(most, running)
		mu.Unlock()
		for range 200 {
			runtime.Gosched()
		}
		mu.Lock()
		running--
		mu.Unlock()
		return in.City, nil
	})
	var calls []providers.ToolCall
	for i := range 200 {
		calls = append(calls, call(fmt.Sprint("c", i), "slow", `{"city":"x"}`))
	}
	m := &scripted.Model{Responses: []scripted.Response{
		{ToolCalls: calls},
		{ToolCalls: []providers.ToolCall{call("f", "final_answer", `{"answer": 1}`)}},
	}}
	a, err := New(Options{Model: m, ActionType: ActionToolCalling, Tools: []tool.Tool{slow}, MaxToolThreads: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Run(context.Background(), "many", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if most > 3 || ran != MaxToolCallsPerStep {
		t.Errorf("at most %d at once (want <= 3), %d ran (want %d)", most, ran, MaxToolCallsPerStep)
	}
	msgs := m.Calls()[1].Messages
	last := msgs[len(msgs)-1]
	if last.Role != providers.RoleTool || last.ToolCallID != "c199" || !strings.Contains(last.Content, "at most 64 tool calls") {
		t.Errorf("call 200 answered %+v", last)
	}
}
