package starlarkagent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/star-agent/star-agent/providers"
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

// TestReplayToolCalling: a tool-calling agent's calls of one step get
// CallIDs 1, 2, ... (not all 1), are recorded, and a replay answers them
// from the record without calling the tool.
func TestReplayToolCalling(t *testing.T) {
	var calls atomic.Int64
	var keys sync.Map
	count := tool.MustNew("count", "Counts its calls.", func(ctx context.Context, in struct {
		Tag string `json:"tag"`
	}) (int, error) {
		id, _ := CallIDFrom(ctx)
		keys.Store(id.String(), in.Tag)
		return int(calls.Add(1)), nil
	})
	model := func() *scripted.Model {
		return &scripted.Model{Responses: []scripted.Response{
			{ToolCalls: []providers.ToolCall{call("a", "count", `{"tag": "a"}`), call("b", "count", `{"tag": "b"}`)}},
			{ToolCalls: []providers.ToolCall{call("f", "final_answer", `{"answer": "done"}`)}},
		}}
	}
	run := func(opts RunOptions) *RunResult {
		a, err := New(Options{Model: model(), ActionType: ActionToolCalling, Tools: []tool.Tool{count}})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		res, err := a.Run(context.Background(), "go", opts)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := run(RunOptions{RunID: "r_1", Record: true})
	for _, k := range []string{"r_1/agent/1/1", "r_1/agent/1/2"} {
		if _, ok := keys.Load(k); !ok {
			t.Errorf("no call with the key %s", k)
		}
	}
	step := first.Steps[1].(*ActionStep)
	if step.Replay == nil || len(step.Replay.Calls) != 2 {
		t.Fatalf("step 1's record: %+v", step.Replay)
	}
	again := run(RunOptions{RunID: "r_1", Replay: []*StepRecord{step.Replay}})
	if n := calls.Load(); n != 2 {
		t.Errorf("the tool was called %d times in all, want 2 (the replay answers from the record)", n)
	}
	got := fmt.Sprint(again.Steps[1].(*ActionStep).ToolCalls[0].Result, again.Steps[1].(*ActionStep).ToolCalls[1].Result)
	if want := fmt.Sprint(step.ToolCalls[0].Result, step.ToolCalls[1].Result); got != want {
		t.Errorf("replayed results %s, recorded %s", got, want)
	}
}
