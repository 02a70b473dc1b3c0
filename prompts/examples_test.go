package prompts_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/local"
	"github.com/star-agent/star-agent/prompts"
	"github.com/star-agent/star-agent/starlarkagent/tool"
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
	for _, ex := range examples {
		task, _, _ := strings.Cut(ex, "\n")
		t.Run(task, func(t *testing.T) {
			e, err := local.New(local.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := e.SetTools(exampleTools()); err != nil {
				t.Fatal(err)
			}
			if err := e.SetVariables(map[string]any{"reviews": []any{
				"The parcel came two weeks late.", "Late again, and the box was crushed.", "Great product."}}); err != nil {
				t.Fatal(err)
			}
			blocks := strings.Split(ex, "\n<code>\n")[1:]
			for i, b := range blocks {
				code, after, ok := strings.Cut(b, "\n</code>")
				if !ok {
					t.Fatalf("block %d has no closing tag", i+1)
				}
				res, err := e.Execute(context.Background(), code)
				if err != nil || res.Err != nil {
					t.Fatalf("block %d:\n%s\nfailed: %v %v", i+1, code, err, res.Err)
				}
				obs, hasObs := strings.CutPrefix(after, "\nObservation: ")
				if last := i == len(blocks)-1; last != res.IsFinal || last == hasObs {
					t.Fatalf("block %d: final %v, observation %v; only the last block calls final_answer, and every other one shows its observation", i+1, res.IsFinal, hasObs)
				}
				if hasObs {
					want, _, _ := strings.Cut(obs, "\n\nThought:")
					if got := strings.TrimSuffix(res.Stdout, "\n"); got != want {
						t.Errorf("block %d prints\n%s\nthe example shows\n%s", i+1, got, want)
					}
				}
			}
		})
	}
}
