package runnertest

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
)

// CancelledSetUp checks SetTools and SetVariables of an executor whose
// sandbox runs, under a ctx that has ended: one that ended before the call
// returns its error and changes nothing; one that ends while the sandbox
// is being told returns its error too, and the next Execute runs with the
// tools and variables in a fresh sandbox, saying that state was lost.
func CancelledSetUp(t *testing.T, newExec func(t *testing.T) executors.Executor) {
	t.Run("ended before", func(t *testing.T) {
		e := newExec(t)
		OK(t, e, "kept = 1")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := e.SetTools(ctx, Tools()); !errors.Is(err, context.Canceled) {
			t.Errorf("SetTools: err = %v, want context.Canceled", err)
		}
		if err := e.SetVariables(ctx, map[string]any{"given": int64(2)}); !errors.Is(err, context.Canceled) {
			t.Errorf("SetVariables: err = %v, want context.Canceled", err)
		}
		if res := OK(t, e, "kept"); res.Repr != "1" || len(res.Notes) > 0 {
			t.Errorf("after the cancelled calls: kept = %s, notes %q; want 1 in the same sandbox", res.Repr, res.Notes)
		}
		for _, name := range []string{"add", "given"} {
			if res := Run(t, e, name); res.Err == nil || res.Err.Type != "NameError" {
				t.Errorf("%s after the cancelled calls: %s, err %v; want NameError", name, res.Repr, res.Err)
			}
		}
	})
	t.Run("ends while telling", func(t *testing.T) {
		e := newExec(t)
		OK(t, e, "kept = 1")
		// The ctx is alive when the executor first asks, and ended when it
		// waits for the sandbox's answer; which of the answer and the end
		// comes first is up to the scheduler, so both outcomes are checked.
		err := e.SetTools(endsAfterFirstLook(), Tools())
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("SetTools: err = %v, want nil or context.Canceled", err)
		}
		t.Logf("SetTools under a ctx that ended while it waited: %v", err)
		res := OK(t, e, "print(add(1, 2))")
		if res.Stdout != "3\n" {
			t.Fatalf("a tool given under the ctx: stdout %q, want 3", res.Stdout)
		}
		lost := strings.Contains(strings.Join(res.Notes, "\n"), "cancelled")
		if (err != nil) != lost {
			t.Errorf("SetTools err = %v, but the next result's notes are %q", err, res.Notes)
		}
		err = e.SetVariables(endsAfterFirstLook(), map[string]any{"given": int64(2)})
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("SetVariables: err = %v, want nil or context.Canceled", err)
		}
		if res := OK(t, e, "given"); res.Repr != "2" {
			t.Errorf("a variable given under the ctx: %q, want 2", res.Repr)
		}
	})
}

// endsAfterFirstLook is a ctx whose Err is nil the first time it is asked
// and context.Canceled from then on, and whose Done is closed: it ends
// between the executor's first check and its wait for the sandbox.
func endsAfterFirstLook() context.Context {
	done := make(chan struct{})
	close(done)
	return &lateCtx{done: done}
}

type lateCtx struct {
	done   chan struct{}
	looked atomic.Bool
}

func (c *lateCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *lateCtx) Done() <-chan struct{}       { return c.done }
func (c *lateCtx) Value(any) any               { return nil }
func (c *lateCtx) Err() error {
	if c.looked.Swap(true) {
		return context.Canceled
	}
	return nil
}
