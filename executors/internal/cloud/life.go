package cloud

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/star-agent/star-agent/executors/runner"
)

// Life is how a cloud sandbox's runner ends, as runner.Sandbox reports it.
// The runner's stdout reaches the Session through a pipe; End closes that
// pipe with the reason, so that the Session's read fails with
// io.ErrUnexpectedEOF and says why. Kill cancels Context (which the
// sandbox's streams and calls use) and asks the service, in the
// background, to delete the sandbox; Died and Ended then report the
// service's answer, since only it knows when the sandbox is gone. A Life
// is embedded in a sandbox, which supplies Kill and Session.
type Life struct {
	// Out is where the sandbox writes the runner's stdout; the Session
	// reads the other end of the pipe.
	Out *io.PipeWriter
	// Stderr keeps the end of the runner's stderr, which Died adds to why.
	Stderr runner.Tail

	ctx    context.Context
	cancel context.CancelFunc

	killOnce sync.Once
	endOnce  sync.Once
	mu       sync.Mutex
	why      string        // why the runner ended, once over is closed
	over     chan struct{} // closed when the runner is known to have ended
	released chan struct{} // closed when the service has answered the deletion after Kill
	gone     bool          // the service confirmed the deletion (or found it gone)
}

// NewLife returns the Life of a sandbox whose runner's stdout is written
// to out.
func NewLife(out *io.PipeWriter) *Life {
	ctx, cancel := context.WithCancel(context.Background())
	return &Life{ctx: ctx, cancel: cancel, Out: out, over: make(chan struct{}), released: make(chan struct{})}
}

// Context ends at Kill.
func (l *Life) Context() context.Context { return l.ctx }

// End records why the runner ended and ends the Session's stream; only
// the first call counts.
func (l *Life) End(why string) {
	l.endOnce.Do(func() {
		l.mu.Lock()
		l.why = why
		l.mu.Unlock()
		l.Out.CloseWithError(fmt.Errorf("%w (%s)", io.ErrUnexpectedEOF, why))
		close(l.over)
	})
}

// Killed reports whether Kill was called.
func (l *Life) Killed() bool {
	select {
	case <-l.ctx.Done():
		return true
	default:
		return false
	}
}

// Kill cancels Context, ends the runner with why, and runs release (the
// service's delete or terminate call) in the background; release reports
// whether the service confirmed the sandbox gone. Only the first call does
// this, and it alone returns true.
func (l *Life) Kill(why string, release func() (gone bool)) bool {
	first := false
	l.killOnce.Do(func() {
		first = true
		l.cancel()
		l.End(why)
		go func() {
			defer close(l.released)
			if release() {
				l.mu.Lock()
				l.gone = true
				l.mu.Unlock()
			}
		}()
	})
	return first
}

// Released is closed when the release after Kill has returned.
func (l *Life) Released() <-chan struct{} { return l.released }

// Died waits up to d for the runner to end, or after Kill for the service
// to answer, and says why it ended, with the end of its stderr.
func (l *Life) Died(d time.Duration) string {
	t := time.NewTimer(d)
	defer t.Stop()
	wait := l.over
	if l.Killed() {
		wait = l.released
	}
	select {
	case <-wait:
	case <-t.C:
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	why := l.why
	if tl := strings.TrimSpace(l.Stderr.String()); tl != "" {
		why += ": " + tl
	}
	return why
}

// Ended reports whether the service confirmed the sandbox deleted.
func (l *Life) Ended() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gone
}
