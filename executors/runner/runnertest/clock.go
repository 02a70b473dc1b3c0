package runnertest

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/tool"
)

// ClockPauses checks that time a tool call spends waiting for a person
// (executors.PauseClock, as an approval does) does not count against the
// execution's time limit, and that the rest still does. newExec must
// return an executor with the given time limit and every import
// authorized; the tools are given with SetTools.
func ClockPauses(t *testing.T, newExec func(t *testing.T, limit time.Duration) executors.Executor) {
	const limit, wait = 300 * time.Millisecond, time.Second
	// ask(x) returns x after a person took wait to answer.
	ask := Func{S: tool.Spec{Name: "ask", Inputs: []tool.Input{{Name: "x", Type: tool.Any}}},
		F: func(ctx context.Context, args map[string]any) (any, error) {
			defer executors.PauseClock(ctx)()
			select {
			case <-time.After(wait):
				return args["x"], nil
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
		}}
	withAsk := func(t *testing.T) executors.Executor {
		e := newExec(t, limit)
		if err := e.SetTools(context.Background(), []tool.Tool{ask}); err != nil {
			t.Fatal(err)
		}
		OK(t, e, "x = 1") // start the sandbox
		return e
	}

	t.Run("a wait does not count", func(t *testing.T) {
		e := withAsk(t)
		res := OK(t, e, "a = ask(1)\nb = parallel(ask, [2, 3, 4])\n[a] + b")
		if want := []any{int64(1), int64(2), int64(3), int64(4)}; !reflect.DeepEqual(res.Value, want) {
			t.Errorf("got %#v, want %#v", res.Value, want)
		}
	})

	t.Run("the rest counts", func(t *testing.T) {
		e := withAsk(t)
		// A generous bound: the loop must end, at the limit plus the
		// wait, and a clock left paused would let it run for ever.
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		start := time.Now()
		res, err := e.Execute(ctx, "ask(1)\nwhile True:\n    pass")
		took := time.Since(start)
		if err != nil {
			t.Fatalf("Execute: %v after %s", err, took)
		}
		if res.Err == nil || res.Err.Type != "TimeoutError" || !strings.Contains(res.Err.Message, limit.String()) {
			t.Fatalf("got %+v, want a TimeoutError", res.Err)
		}
		if took < limit+wait {
			t.Errorf("stopped after %s, before the limit and the wait (%s)", took, limit+wait)
		}
	})
}
