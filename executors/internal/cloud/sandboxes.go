package cloud

import (
	"context"
	"sync"
)

// Sandboxes is the set of sandboxes an executor has started and the
// service has not yet deleted. A cloud sandbox costs money and outlives
// the process that forgets it, so the executor's Close must reach every
// one, including those whose start failed or was cut off, which never
// became the runner.Host's. Methods are safe for concurrent use.
type Sandboxes[S interface {
	comparable
	Kill()
}] struct {
	// closing ends the starts in flight when Close is called.
	closing context.Context
	closeIt context.CancelFunc

	mu     sync.Mutex
	live   map[S]struct{}
	closed bool
}

// NewSandboxes returns an empty set.
func NewSandboxes[S interface {
	comparable
	Kill()
}]() *Sandboxes[S] {
	x := &Sandboxes[S]{live: map[S]struct{}{}}
	x.closing, x.closeIt = context.WithCancel(context.Background())
	return x
}

// Start begins a start: it returns ctx, also cancelled (its cause "executor
// closed") when Close is called, and the function that releases it; it
// fails when the set is closed.
func (x *Sandboxes[S]) Start(ctx context.Context) (context.Context, context.CancelFunc, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(x.closing, func() { cancel(errClosed) })
	if x.Closed() {
		stop()
		cancel(nil)
		return nil, nil, errClosed
	}
	return ctx, func() { stop(); cancel(nil) }, nil
}

// Add records a started sandbox; when the set was closed meanwhile, it
// kills s and fails.
func (x *Sandboxes[S]) Add(s S) error {
	x.mu.Lock()
	x.live[s] = struct{}{}
	closed := x.closed
	x.mu.Unlock()
	if closed {
		s.Kill()
		return errClosed
	}
	return nil
}

// Forget removes a sandbox the service has answered the deletion of.
func (x *Sandboxes[S]) Forget(s S) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.live, s)
}

// Closed reports whether Close was called.
func (x *Sandboxes[S]) Closed() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.closed
}

// Live returns the sandboxes not yet forgotten.
func (x *Sandboxes[S]) Live() []S {
	x.mu.Lock()
	defer x.mu.Unlock()
	live := make([]S, 0, len(x.live))
	for s := range x.live {
		live = append(live, s)
	}
	return live
}

// Close closes the set, cuts off the starts in flight and kills every
// live sandbox; it does not wait for the deletions.
func (x *Sandboxes[S]) Close() {
	x.mu.Lock()
	x.closed = true
	x.mu.Unlock()
	live := x.Live()
	x.closeIt()
	for _, s := range live {
		s.Kill()
	}
}
