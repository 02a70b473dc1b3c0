package starlarkagent

import (
	"context"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/tool"
)

type lookupArgs struct {
	Key     string `json:"key" jsonschema:"The key to look up."`
	Default string `json:"default,omitempty" jsonschema:"Returned when the key is unknown."`
}

var lookup = tool.MustNew("lookup", "Looks a key up in the table.", func(_ context.Context, a lookupArgs) (string, error) {
	table := map[string]string{"paris": "France", "rome": "Italy"}
	if v, ok := table[a.Key]; ok {
		return v, nil
	}
	if a.Default != "" {
		return a.Default, nil
	}
	return "", &notFound{a.Key}
})

type notFound struct{ key string }

func (e *notFound) Error() string { return "no entry for " + e.key }

// TestLocalEngine runs the loop on the default executor, the Starlark
// engine: tools are builtins callable positionally and by keyword, a tool's
// error is an exception the code can catch, additional args are variables,
// state persists between steps, and final_answer cannot be swallowed.
func TestLocalEngine(t *testing.T) {
	m := scripted.New(
		action("Look things up.", `
a = lookup("paris")
b = lookup(key="atlantis", default="unknown")
print(a, b, city)`),
		action("Fail.", `lookup("atlantis")`),
		action("Answer.", `final_answer(a + "/" + city)`),
	)
	a, err := New(Options{Model: m, Tools: []tool.Tool{lookup}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Run(context.Background(), "t", RunOptions{AdditionalArgs: map[string]any{"city": "rome"}})
	if err != nil {
		var b strings.Builder
		a.Memory().Replay(&b)
		t.Fatalf("%v\n%s", err, b.String())
	}
	if res.Output != "France/rome" {
		t.Errorf("output %#v", res.Output)
	}
	st := a.Memory().ActionSteps()[0]
	if st.Error != nil {
		t.Fatalf("step 1 failed: %s", st.Error.Message)
	}
	if want := "Execution logs:\nFrance unknown rome\nLast output from code snippet:\nNone"; st.Observation != want {
		t.Errorf("observation %q, want %q", st.Observation, want)
	}
	if len(st.ToolCalls) != 2 || st.ToolCalls[1].Arguments["default"] != "unknown" {
		t.Errorf("tool calls %+v", st.ToolCalls)
	}
	failed := a.Memory().ActionSteps()[1]
	if failed.Error == nil || !strings.Contains(failed.Error.Message, "no entry for atlantis") || failed.ToolCalls[0].Error != "no entry for atlantis" {
		t.Errorf("tool error step: %+v", failed.Error)
	}
	if st.Engine != "starlark" {
		t.Errorf("engine %q", st.Engine)
	}
}

// TestLocalEngineErrors checks the messages the model reads about failing
// code, as the engine reports them.
func TestLocalEngineErrors(t *testing.T) {
	m := scripted.New(
		action("a", "print('before')\nx = {'a': 1}\ny = x['b']"),
		action("b", "import os"),
		action("c", "final_answer(len(x))"),
	)
	a, err := New(Options{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Run(context.Background(), "t", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	steps := a.Memory().ActionSteps()
	if e := steps[0].Error; e == nil || e.Type != "KeyError" || !strings.HasPrefix(e.Message, "Code execution failed at line 'y = x['b']' due to: KeyError:") || steps[0].Observation != "Execution logs:\nbefore\n" {
		t.Errorf("step 1: %+v, observation %q", e, steps[0].Observation)
	}
	if e := steps[1].Error; e == nil || !strings.Contains(e.Message, "import of os is not allowed") {
		t.Errorf("step 2: %+v", e)
	}
	if got := steps[1].Imports; len(got) != 1 || got[0] != "os" {
		t.Errorf("imports %v", got)
	}
}

// TestLocalEngineTry checks that a tool's error can be caught and that
// final_answer cannot be swallowed by except.
func TestLocalEngineTry(t *testing.T) {
	m := scripted.New(
		action("a", `
try:
    lookup("atlantis")
except Exception as e:
    print("caught:", e)`),
		action("b", `
try:
    final_answer("done")
except Exception:
    print("swallowed")`),
	)
	a, err := New(Options{Model: m, Tools: []tool.Tool{lookup}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Run(context.Background(), "t", RunOptions{})
	if st := a.Memory().ActionSteps()[0]; st.Error != nil {
		t.Fatalf("step 1 failed: %s", st.Error.Message)
	}
	if err != nil || res.Output != "done" {
		t.Fatalf("output %#v, err %v", res.Output, err)
	}
	if obs := a.Memory().ActionSteps()[0].Observation; !strings.Contains(obs, "caught: no entry for atlantis") {
		t.Errorf("observation %q", obs)
	}
}

// TestStreamToolCallDuringExecution: a tool call is streamed when it
// returns, while the code still runs, not when the step ends.
func TestStreamToolCallDuringExecution(t *testing.T) {
	var laterCalled bool
	later := tool.MustNew("later", "Records that it ran.", func(context.Context, struct{}) (string, error) {
		laterCalled = true
		return "", nil
	})
	m := scripted.New(action("Call twice.", `lookup("paris")
later()
final_answer("ok")`))
	a, err := New(Options{Model: m, Tools: []tool.Tool{lookup, later}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var seen []string
	for ev, err := range a.Stream(context.Background(), "t", RunOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := ev.(*ToolCallEvent); ok {
			seen = append(seen, e.Call.Name)
			if e.Call.Name == "lookup" && laterCalled {
				t.Error("the lookup call was streamed after the code's next tool call ran")
			}
		}
	}
	if strings.Join(seen, ",") != "lookup,later" {
		t.Errorf("tool call events %v", seen)
	}
}
