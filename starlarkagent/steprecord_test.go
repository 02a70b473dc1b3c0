package starlarkagent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/tool"
)

// TestReplayIsExact: a run recorded with RunOptions.Record, replayed by a
// fresh agent from its step records (through JSON, as a store keeps
// them): random numbers, the clock and tool results come out the same,
// and the tool is not called again for the replayed step; the step after
// it runs live and calls it with the same CallID scheme.
func TestReplayIsExact(t *testing.T) {
	var calls atomic.Int64
	count := tool.MustNew("count", "Counts its calls.", func(ctx context.Context, in struct {
		Scale float64 `json:"scale"`
	}) (float64, error) {
		return float64(calls.Add(1)) * in.Scale, nil
	})
	answers := func() *scripted.Model {
		return scripted.New(
			action("Draw.", "import random, time\nx = random.random()\nt = time.time_ns()\nc = count(scale=1.0)\nprint(x, t, c)"),
			action("Answer.", "final_answer((x, t, c, count(scale=2.0)))"),
		)
	}
	newAgent := func() *Agent {
		a, err := New(Options{Model: answers(), Tools: []tool.Tool{count}, AuthorizedImports: []string{"random", "time"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		return a
	}
	first, err := newAgent().Run(context.Background(), "go", RunOptions{RunID: "r_1", Record: true})
	if err != nil {
		t.Fatal(err)
	}
	var records []*StepRecord
	for _, st := range first.Steps {
		if a, ok := st.(*ActionStep); ok && a.Number == 1 {
			b, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			var back ActionStep
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			records = append(records, back.Replay)
		}
	}
	if len(records) != 1 || records[0] == nil || len(records[0].Readings) != 2 || len(records[0].Calls) != 1 {
		t.Fatalf("step 1's record: %+v", records)
	}
	before := calls.Load() // 2: one per step
	again, err := newAgent().Run(context.Background(), "go", RunOptions{RunID: "r_1", Replay: records})
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load() - before; n != 1 {
		t.Errorf("the replay called the tool %d times, want once (step 2's call only)", n)
	}
	f, g := fmt.Sprint(first.Output), fmt.Sprint(again.Output)
	// x, t and c as recorded; step 2's call is live (3 * 2.0, not 2 * 2.0).
	want := fmt.Sprint(first.Output.(pyvalue.Tuple)[:3])
	if got := fmt.Sprint(again.Output.(pyvalue.Tuple)[:3]); got != want {
		t.Errorf("replayed %s, first %s", g, f)
	}
	if got := fmt.Sprint(again.Output.(pyvalue.Tuple)[3]); got != "6" {
		t.Errorf("step 2's live call returned %s, want 6: %s", got, g)
	}
}
