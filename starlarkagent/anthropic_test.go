package starlarkagent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/anthropic"
	"github.com/star-agent/star-agent/providers/anthropic/anthropicfake"
	"github.com/star-agent/star-agent/tools/mcp/mcptest"
)

// TestToolCallingAnthropic runs the tool-calling agent against a strict
// local fake of Anthropic's Messages API, through the real provider: two
// calls in one answer, a plan update and the max-steps answer over a
// history of tool calls, a task image and an MCP image observation, with
// and without streaming.
func TestToolCallingAnthropic(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			srv := anthropicfake.New("sk-test", "unused")
			defer srv.Close()
			srv.Script(
				[]anthropicfake.Block{{Text: "1. Look and add."}},
				[]anthropicfake.Block{{Text: "Both."}, {ID: "toolu_1", Name: "add", Input: `{"a": 2, "b": 40}`}, {ID: "toolu_2", Name: "pixel", Input: `{}`}},
				[]anthropicfake.Block{{Text: "1. Answer."}},
				[]anthropicfake.Block{{ID: "toolu_3", Name: "add", Input: `{"a": 1}`}},
				[]anthropicfake.Block{{Text: "42, and a pixel."}},
			)
			model, err := anthropic.New(anthropic.Options{Model: "claude-test", APIKey: "sk-test", BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			tools := mcpTools(t, mcptest.Options{Only: []string{"add", "pixel"}})
			a, err := New(Options{Model: model, ActionType: ActionToolCalling, Tools: tools, PlanningInterval: 1, MaxSteps: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			ropts := RunOptions{Images: []providers.Image{{Data: pngPixel}}}
			var res *RunResult
			if stream {
				for e := range a.Stream(context.Background(), "add and look", ropts) {
					if end, ok := e.(*RunEnd); ok {
						res = end.Result
					}
				}
			} else {
				res, _ = a.Run(context.Background(), "add and look", ropts)
			}
			if res.Err != nil || res.State != StateMaxSteps || res.Output != "42, and a pixel." {
				t.Fatalf("state %s output %#v err %v", res.State, res.Output, res.Err)
			}
			st := a.Memory().ActionSteps()
			if len(st[0].ToolCalls) != 2 || st[0].ToolCalls[0].ID != "toolu_1" || len(st[0].ObservationImages) != 1 {
				t.Errorf("step 1: %+v", st[0])
			}
			if st[1].ToolCalls[0].Error == "" || !strings.Contains(st[1].ToolCalls[0].Error, "missing required argument: 'b'") {
				t.Errorf("step 2 call: %+v", st[1].ToolCalls[0])
			}
			reqs := srv.Requests()
			if len(reqs) != 5 {
				t.Fatalf("%d requests", len(reqs))
			}
			body := fmt.Sprint(reqs[3].Body["messages"])
			for _, want := range []string{"tool_result", "toolu_1", "toolu_2", "image"} {
				if !strings.Contains(body, want) {
					t.Errorf("request 4 lacks %q: %s", want, body)
				}
			}
		})
	}
}
