package executors

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestClockPauses: a clock of 200 ms paused for 600 ms ends its context
// after the pause plus what was left, never during the pause; nested
// pauses (and resume called twice) hold it until the last one ends.
func TestClockPauses(t *testing.T) {
	ctx, c, stop := StartClock(context.Background(), 200*time.Millisecond)
	defer stop()
	if _, ok := ctx.Deadline(); ok {
		t.Error("a clock's context has a fixed deadline")
	}
	start := time.Now()
	resume1 := PauseClock(ctx)
	derived, cancel := context.WithCancel(ctx)
	defer cancel()
	resume2 := PauseClock(derived)
	time.Sleep(300 * time.Millisecond)
	resume1()
	resume1()
	time.Sleep(300 * time.Millisecond)
	if ctx.Err() != nil {
		t.Fatalf("the context ended during a pause, after %s", time.Since(start))
	}
	if left := c.Left(); left < 150*time.Millisecond {
		t.Errorf("%s left after a pause, want about 200ms", left)
	}
	resume2()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the clock did not end its context")
	}
	if waited := time.Since(start); waited < 800*time.Millisecond {
		t.Errorf("the context ended after %s, before the pause (600ms) and the limit (200ms)", waited)
	}
	if !errors.Is(context.Cause(ctx), ErrTimeLimit) || !TimedOut(ctx) {
		t.Errorf("cause %v", context.Cause(ctx))
	}
}

// TestClockRuns: without a pause the clock ends its context at the
// limit; the outer clocks a context carries pause with the inner one;
// cancelling the parent ends a paused clock's context at once.
func TestClockRuns(t *testing.T) {
	start := time.Now()
	ctx, _, stop := StartClock(context.Background(), 100*time.Millisecond)
	defer stop()
	<-ctx.Done()
	if time.Since(start) < 100*time.Millisecond || !TimedOut(ctx) {
		t.Errorf("ended after %s with %v", time.Since(start), context.Cause(ctx))
	}

	outer, oc, stopOuter := StartClock(context.Background(), time.Hour)
	defer stopOuter()
	inner, ic, stopInner := StartClock(outer, time.Hour)
	defer stopInner()
	resume := PauseClock(inner)
	l1, l2 := oc.Left(), ic.Left()
	time.Sleep(50 * time.Millisecond)
	if oc.Left() != l1 || ic.Left() != l2 {
		t.Errorf("a paused clock ran: %s -> %s, %s -> %s", l1, oc.Left(), l2, ic.Left())
	}
	resume()

	parent, cancel := context.WithCancel(context.Background())
	ctx, _, stop = StartClock(parent, time.Hour)
	defer stop()
	defer PauseClock(ctx)()
	cancel()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("cancelling the parent did not end a paused clock's context")
	}
	if TimedOut(ctx) {
		t.Error("a cancelled context reports a timeout")
	}
}
