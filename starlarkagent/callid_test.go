package starlarkagent

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/tool"
)

// TestCallID: each tool call gets run/agent/step/call, numbered from 1
// within its step, so that a replayed call has the key it had.
func TestCallID(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	record := tool.MustNew("record", "Records its idempotency key.", func(ctx context.Context, _ struct{}) (string, error) {
		id, ok := CallIDFrom(ctx)
		mu.Lock()
		keys = append(keys, fmt.Sprint(ok, " ", id))
		mu.Unlock()
		return "ok", nil
	})
	m := scripted.New(
		action("Twice.", "record()\nrecord()"),
		action("Once more.", "record()\nfinal_answer(1)"),
	)
	a, err := New(Options{Model: m, Tools: []tool.Tool{record}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Run(context.Background(), "go", RunOptions{RunID: "r_1"}); err != nil {
		t.Fatal(err)
	}
	want := "[true r_1/agent/1/1 true r_1/agent/1/2 true r_1/agent/2/1]"
	if got := fmt.Sprint(keys); got != want {
		t.Errorf("keys %s, want %s", got, want)
	}
}
