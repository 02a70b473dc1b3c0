package executors

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// An execution's time limit (Limits.Timeout) counts the time it runs, not
// the time it waits for a person. A tool call that needs approval waits
// inside the call, where the code made it, for as long as the person (or
// the approver's own timeout) takes; meanwhile the execution's Clock, and
// the clocks of the executions whose tool calls led to it (a managed
// agent's, a router's, the host of a sandbox or of a child process), are
// paused: whoever waits calls PauseClock with the call's context and the
// returned resume when the decision comes. The clocks run again only when
// no call is waiting: while one call of a parallel() waits, the others'
// time does not count either, so a step runs at most its limit plus the
// time someone was being asked. Cancelling the context still ends the
// execution at once, waiting or not.

// ErrTimeLimit is the cause (context.Cause) of an execution's context
// whose time limit ran out. It wraps context.DeadlineExceeded.
var ErrTimeLimit = fmt.Errorf("the execution's time limit was reached: %w", context.DeadlineExceeded)

// TimedOut reports whether ctx ended because a time limit ran out: a
// Clock's or a deadline's.
func TimedOut(ctx context.Context) bool {
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded)
}

// A Clock counts an execution's running time against its limit and ends
// the execution's context when the limit is reached. It stops while it is
// paused (see PauseClock).
type Clock struct {
	limit  time.Duration
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	used  time.Duration // counted before since
	since time.Time     // when the clock last started running
	holds int           // pauses in force: the clock runs when there are none
	timer *time.Timer
	ended bool
}

// StartClock starts a clock of limit for an execution. The returned
// context ends with cause ErrTimeLimit when the clock reaches the limit;
// it carries the clock, so that PauseClock with it, or with a context
// derived from it, pauses the clock. stop ends the context and the clock.
// The context has no deadline of its own: its end moves while it waits.
func StartClock(ctx context.Context, limit time.Duration) (context.Context, *Clock, context.CancelFunc) {
	cctx, cancel := context.WithCancelCause(ctx)
	c := &Clock{limit: limit, cancel: cancel, since: time.Now()}
	c.mu.Lock()
	c.timer = time.AfterFunc(limit, c.expire)
	c.mu.Unlock()
	stop := func() {
		c.mu.Lock()
		c.ended = true
		c.timer.Stop()
		c.mu.Unlock()
		cancel(context.Canceled)
	}
	return WithPauser(cctx, c), c, stop
}

// expire ends the context if the limit is reached, or sets the timer
// again for the time left (a pause moved the limit while the timer fired).
func (c *Clock) expire() {
	c.mu.Lock()
	if c.ended || c.holds > 0 {
		c.mu.Unlock()
		return
	}
	if left := c.limit - c.used - time.Since(c.since); left > 0 {
		c.timer.Reset(left)
		c.mu.Unlock()
		return
	}
	c.ended = true
	c.mu.Unlock()
	c.cancel(ErrTimeLimit)
}

// Pause stops the clock until resume is called (more calls of resume do
// nothing). Pauses nest: the clock runs again when every one has ended.
func (c *Clock) Pause() (resume func()) {
	c.mu.Lock()
	if c.holds == 0 && !c.ended {
		c.used += time.Since(c.since)
		c.timer.Stop()
	}
	c.holds++
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.holds--; c.holds == 0 && !c.ended {
				c.since = time.Now()
				c.timer.Reset(max(c.limit-c.used, 0))
			}
		})
	}
}

// Left returns the running time left before the limit; while the clock
// is paused, it does not decrease.
func (c *Clock) Left() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	left := c.limit - c.used
	if c.holds == 0 {
		left -= time.Since(c.since)
	}
	return max(left, 0)
}

// Deadline returns when the limit is reached if the clock runs from now
// on without a pause.
func (c *Clock) Deadline() time.Time { return time.Now().Add(c.Left()) }

// A Pauser is a clock that stops while an execution waits for a person:
// a Clock, or what tells one elsewhere (in a child process) to stop.
type Pauser interface {
	// Pause stops the clock until resume is called; resume may be
	// called more than once.
	Pause() (resume func())
}

type pausersKey struct{}

// WithPauser returns a context that carries p, after the pausers ctx
// carries already, for PauseClock.
func WithPauser(ctx context.Context, p Pauser) context.Context {
	outer, _ := ctx.Value(pausersKey{}).([]Pauser)
	return context.WithValue(ctx, pausersKey{}, append(slices.Clip(outer), p))
}

// PauseClock pauses the clocks of the executions ctx belongs to (see
// StartClock and WithPauser) until resume is called: what waits for a
// person's decision calls it, so that the wait does not count against the
// executions' time limits. resume may be called more than once. With no
// clock in ctx, it does nothing.
func PauseClock(ctx context.Context) (resume func()) {
	ps, _ := ctx.Value(pausersKey{}).([]Pauser)
	if len(ps) == 0 {
		return func() {}
	}
	resumes := make([]func(), len(ps))
	for i, p := range ps {
		resumes[i] = p.Pause()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for i := len(resumes) - 1; i >= 0; i-- {
				resumes[i]()
			}
		})
	}
}
