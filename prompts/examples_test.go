package prompts_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/prompts"
	"github.com/star-agent/star-agent/tool"
)

// canned is an imaginary tool of the worked examples, answering what the
// example's observation shows.
type canned struct {
	spec tool.Spec
	fn   func(args map[string]any) (any, error)
}

func (c canned) Spec() tool.Spec { return c.spec }
func (c canned) Call(_ context.Context, args map[string]any) (any, error) {
	return c.fn(args)
}

func strTool(name string, inputs []string, fn func(args map[string]any) (any, error)) canned {
	s := tool.Spec{Name: name, Description: name, Output: tool.Any}
	for _, in := range inputs {
		s.Inputs = append(s.Inputs, tool.Input{Name: in, Type: tool.Any, Description: in})
	}
	return canned{s, fn}
}

func exampleTools() []tool.Tool {
	str := func(args map[string]any, k string) string { s, _ := args[k].(string); return s }
	return []tool.Tool{
		strTool("web_search", []string{"query"}, func(a map[string]any) (any, error) {
			if strings.Contains(str(a, "query"), "census") {
				return "No results found.", nil
			}
			return "Sydney is the largest city of Australia, with about 5.45 million inhabitants (2024).", nil
		}),
		strTool("rain_history", []string{"city", "period"}, func(a map[string]any) (any, error) {
			return map[string]string{"Lyon": "12 mm", "Nantes": "25 mm", "Lille": "19 mm"}[str(a, "city")], nil
		}),
		strTool("latest_posts", []string{"blog"}, func(a map[string]any) (any, error) {
			return "1. \"Release 2.0\" by Ana Ruiz, 3 June\n2. \"We are hiring\" by Tom Lee, 28 May", nil
		}),
		strTool("author_email", []string{"name"}, func(a map[string]any) (any, error) {
			return strings.ToLower(strings.ReplaceAll(str(a, "name"), " ", ".")) + "@example.com", nil
		}),
		strTool("get_temperature", []string{"city"}, func(a map[string]any) (any, error) {
			return map[string]any{"city": str(a, "city"), "celsius": map[string]int{"Oslo": 4, "Rome": 15}[str(a, "city")]}, nil
		}),
		strTool("exchange_rate", []string{"base", "quote"}, func(a map[string]any) (any, error) {
			if r, ok := map[string]float64{"EUR": 0.92, "JPY": 151.3}[str(a, "quote")]; ok {
				return r, nil
			}
			return nil, errors.New("unknown currency '" + str(a, "quote") + "'")
		}),
		strTool("researcher", []string{"task", "additional_args"}, func(a map[string]any) (any, error) {
			return "Founded in 2011 in Lyon (https://example.com/acme); makes warehouse robots (https://example.com/robots).", nil
		}),
	}
}

// TestWorkedExamplesRun: every worked example of the system prompt runs
// in the Starlark engine, step by step, printing exactly the observation
// the example shows and ending with final_answer, so the prompt never
// teaches the model code that fails here.
func TestWorkedExamplesRun(t *testing.T) {
	for _, ex := range workedExamples(t) {
		task, _, _ := strings.Cut(ex, "\n")
		t.Run(task, func(t *testing.T) {
			e, err := starlarkexec.New(starlarkexec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := e.SetTools(context.Background(), exampleTools()); err != nil {
				t.Fatal(err)
			}
			if err := e.SetVariables(context.Background(), map[string]any{"reviews": reviews}); err != nil {
				t.Fatal(err)
			}
			steps := exampleSteps(t, ex)
			for i, st := range steps {
				res, err := e.Execute(context.Background(), st.code)
				if err != nil || res.Err != nil {
					t.Fatalf("block %d:\n%s\nfailed: %v %v", i+1, st.code, err, res.Err)
				}
				if last := i == len(steps)-1; last != res.IsFinal {
					t.Fatalf("block %d: final %v; only the last block calls final_answer", i+1, res.IsFinal)
				}
				if got := strings.TrimSuffix(res.Stdout, "\n"); !res.IsFinal && got != st.observation {
					t.Errorf("block %d prints\n%s\nthe example shows\n%s", i+1, got, st.observation)
				}
			}
		})
	}
}

var reviews = []any{"The parcel came two weeks late.", "Late again, and the box was crushed.", "Great product."}

type exampleStep struct{ code, observation string }

// exampleSteps splits a worked example into its code blocks and the
// observation shown after each; every block but the last has one.
func exampleSteps(t *testing.T, ex string) []exampleStep {
	t.Helper()
	var steps []exampleStep
	blocks := strings.Split(ex, "\n<code>\n")[1:]
	for i, b := range blocks {
		code, after, ok := strings.Cut(b, "\n</code>")
		if !ok {
			t.Fatalf("block %d has no closing tag", i+1)
		}
		obs, hasObs := strings.CutPrefix(after, "\nObservation: ")
		if last := i == len(blocks)-1; last == hasObs {
			t.Fatalf("block %d: every block but the last shows its observation", i+1)
		}
		obs, _, _ = strings.Cut(obs, "\n\nThought:")
		steps = append(steps, exampleStep{code, obs})
	}
	return steps
}

// workedExamples returns the worked examples of the default system
// prompt of an agent with a team member.
func workedExamples(t *testing.T) []string {
	t.Helper()
	text, err := prompts.Default().Render(prompts.SystemPrompt, prompts.Data{
		Tools:             []tool.Spec{{Name: "final_answer", Output: tool.Any}},
		ManagedAgents:     []prompts.Agent{{Name: "researcher", Description: "Finds facts."}},
		AuthorizedImports: executors.DefaultAuthorizedImports,
		CodeOpen:          "<code>", CodeClose: "</code>",
	})
	if err != nil {
		t.Fatal(err)
	}
	_, text, _ = strings.Cut(text, "\n---\n")
	text, _, _ = strings.Cut(text, "\nAbove, you used imaginary tools.")
	examples := strings.Split(strings.TrimSuffix(text, "\n---"), "\n---\n")
	if len(examples) < 8 {
		t.Fatalf("%d examples, want 8 with a team member", len(examples))
	}
	return examples
}

// pyTools are the imaginary tools of exampleTools in Python, for CPython.
const pyTools = `
import json, sys
class FinalAnswer(Exception):
    pass
def final_answer(answer):
    raise FinalAnswer(answer)
def web_search(query):
    if "census" in query:
        return "No results found."
    return "Sydney is the largest city of Australia, with about 5.45 million inhabitants (2024)."
def rain_history(city, period):
    return {"Lyon": "12 mm", "Nantes": "25 mm", "Lille": "19 mm"}[city]
def latest_posts(blog):
    return '1. "Release 2.0" by Ana Ruiz, 3 June\n2. "We are hiring" by Tom Lee, 28 May'
def author_email(name):
    return name.replace(" ", ".").lower() + "@example.com"
def get_temperature(city):
    return {"city": city, "celsius": {"Oslo": 4, "Rome": 15}[city]}
def exchange_rate(base, quote):
    rates = {"EUR": 0.92, "JPY": 151.3}
    if quote not in rates:
        raise Exception("unknown currency '%s'" % quote)
    return rates[quote]
def researcher(task, additional_args=None):
    return "Founded in 2011 in Lyon (https://example.com/acme); makes warehouse robots (https://example.com/robots)."
ns = dict(globals())
ns["reviews"] = json.loads(sys.argv[1])
for code in json.load(sys.stdin):
    try:
        exec(code, ns)
    except FinalAnswer:
        pass
    print("\x00", end="")
`

// TestWorkedExamplesCPython: CPython prints what the examples show too.
func TestWorkedExamplesCPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no python3 on PATH (CI=true: this must not be skipped)")
		}
		t.Skip("no python3 on PATH")
	}
	rv, _ := json.Marshal(reviews)
	for _, ex := range workedExamples(t) {
		task, _, _ := strings.Cut(ex, "\n")
		t.Run(task, func(t *testing.T) {
			steps := exampleSteps(t, ex)
			var codes []string
			for _, st := range steps {
				codes = append(codes, st.code)
			}
			in, _ := json.Marshal(codes)
			cmd := exec.Command(py, "-c", pyTools, string(rv))
			cmd.Stdin = strings.NewReader(string(in))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("python3: %v\n%s", err, out)
			}
			outs := strings.Split(string(out), "\x00")
			for i, st := range steps[:len(steps)-1] {
				if got := strings.TrimSuffix(outs[i], "\n"); got != st.observation {
					t.Errorf("block %d prints in CPython\n%s\nthe example shows\n%s", i+1, got, st.observation)
				}
			}
		})
	}
}
