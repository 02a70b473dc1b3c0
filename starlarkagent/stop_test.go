package starlarkagent

import (
	"context"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/providers/scripted"
)

// hallucinating is what a server that ignores stop sequences returns: the
// action, then an invented observation and a second block that ends the
// run with a made-up answer.
const hallucinating = "Thought: compute it.\n<code>\nx = 6 * 7\nprint(x)\n</code>\nObservation: 42\n" +
	"Thought: done.\n<code>\nfinal_answer('hallucinated')\n</code>"

func TestStopSequencesCutOnTheClient(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "generate"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			m := scripted.New(hallucinating, "Thought: now.\n<code>\nfinal_answer(x)\n</code>")
			m.IgnoreStop = true
			a, err := New(Options{Model: m})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			var res *RunResult
			var streamed strings.Builder
			if stream {
				for e := range a.Stream(context.Background(), "compute", RunOptions{}) {
					switch e := e.(type) {
					case *ModelDelta:
						streamed.WriteString(e.Content)
					case *RunEnd:
						res = e.Result
					}
				}
			} else {
				res, _ = a.Run(context.Background(), "compute", RunOptions{})
			}
			if res.Err != nil || res.State != StateSuccess || res.Output != int64(42) {
				t.Fatalf("state %s output %#v err %v: the hallucinated block ran", res.State, res.Output, res.Err)
			}
			st := a.Memory().ActionSteps()[0]
			if strings.Contains(st.ModelOutput, "hallucinated") || strings.Contains(st.Code, "final_answer") {
				t.Errorf("step 1 kept text past the stop sequence:\n%s", st.ModelOutput)
			}
			if stream {
				if strings.Contains(streamed.String(), "Observation") || strings.Contains(streamed.String(), "hallucinated") {
					t.Errorf("the stream showed text past the stop sequence:\n%s", streamed.String())
				}
				if !strings.Contains(streamed.String(), "print(x)") {
					t.Errorf("the stream lost the action:\n%s", streamed.String())
				}
			}
		})
	}
}

// TestCutAt checks the cut at the earliest stop sequence, whatever their
// order.
func TestCutAt(t *testing.T) {
	for _, c := range []struct {
		s     string
		stops []string
		want  string
	}{
		{"a</code>b Observation: c", []string{"Observation:", "</code>"}, "a"},
		{"a Observation: b</code>", []string{"</code>", "Observation:"}, "a "},
		{"no stop", []string{"Observation:"}, "no stop"},
		{"x", []string{""}, "x"},
	} {
		if got := c.s[:cutAt(c.s, c.stops)]; got != c.want {
			t.Errorf("cutAt(%q, %q) = %q, want %q", c.s, c.stops, got, c.want)
		}
	}
}
