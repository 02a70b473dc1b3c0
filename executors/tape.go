package executors

import (
	"context"
	"sync"
)

// A Tape records what one execution read from the outside world: the
// clocks of time and datetime and the seeds of random generators made
// without one, in the order the code read them (the engine asks it through
// the contract.Reader it implements). A tape made with the readings of an
// earlier execution of the same code answers them again, in order, so the
// code computes the same values; once they are used up, readings are
// live again. Put one in the context of Execute (WithTape) to record or
// replay; the engine executors (in process, or in a child process) honour
// it, the full-Python sandboxes do not.
type Tape struct {
	mu     sync.Mutex
	replay []int64
	read   []int64
}

// NewTape returns a tape that answers replay first (nil: records only).
func NewTape(replay []int64) *Tape { return &Tape{replay: replay} }

// Read answers the next reading: from the record while it lasts, else
// live. Either way the reading is recorded.
func (t *Tape) Read(live func() int64) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var v int64
	if len(t.read) < len(t.replay) {
		v = t.replay[len(t.read)]
	} else {
		v = live() // a clock: quick, and in order with the others
	}
	t.read = append(t.read, v)
	return v
}

// Readings returns the readings made so far.
func (t *Tape) Readings() []int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]int64(nil), t.read...)
}

// Record appends readings made elsewhere (in a child process that ran the
// execution) as if made here.
func (t *Tape) Record(readings []int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.read = append(t.read, readings...)
}

// Pending returns the recorded readings not yet answered, for an engine
// in a child process to replay.
func (t *Tape) Pending() []int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.read) >= len(t.replay) {
		return nil
	}
	return append([]int64(nil), t.replay[len(t.read):]...)
}

type tapeKey struct{}

// WithTape returns ctx carrying t.
func WithTape(ctx context.Context, t *Tape) context.Context {
	return context.WithValue(ctx, tapeKey{}, t)
}

// TapeFrom returns the tape ctx carries, or nil.
func TapeFrom(ctx context.Context) *Tape {
	t, _ := ctx.Value(tapeKey{}).(*Tape)
	return t
}
