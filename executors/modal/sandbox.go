package modal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	modalsdk "github.com/modal-labs/modal-client/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/star-agent/star-agent/executors/runner"
)

// sandbox is one Modal sandbox whose entrypoint is the runner: a
// runner.Sandbox. The SDK's Stdout reader (SandboxGetLogs, reopened from
// the last entry id) is copied into a pipe the Session reads, so that the
// reason the sandbox ended can be attached to the end of the stream; the
// Session's writes become Stdin writes; Kill terminates the sandbox.
type sandbox struct {
	id   string
	e    *Executor
	msb  *modalsdk.Sandbox
	sess *runner.Session

	// ctx ends at Kill.
	ctx    context.Context
	cancel context.CancelFunc

	out        *io.PipeWriter
	stderr     tail
	stderrDone chan struct{} // closed when the stderr stream has ended

	killOnce sync.Once
	endOnce  sync.Once
	mu       sync.Mutex
	why      string        // why the runner ended, once over is closed
	over     chan struct{} // closed when the runner is known to have ended
	termDone chan struct{} // closed when the terminate after Kill has been answered
	gone     bool          // Modal confirmed the sandbox terminated (or unknown)
}

var _ runner.Sandbox = (*sandbox)(nil)

func newSandbox(e *Executor, msb *modalsdk.Sandbox) *sandbox {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &sandbox{id: msb.SandboxID, e: e, msb: msb, ctx: ctx, cancel: cancel, out: pw, over: make(chan struct{}), termDone: make(chan struct{}), stderrDone: make(chan struct{})}
	s.sess = runner.NewSession(pr, stdin{s})
	go s.read()
	go func() {
		defer close(s.stderrDone)
		io.Copy(&s.stderr, msb.Stderr)
	}()
	return s
}

func (s *sandbox) String() string { return "modal sandbox " + s.id }

func (s *sandbox) Session() *runner.Session { return s.sess }

// end records why the runner ended and ends the Session's stream.
func (s *sandbox) end(why string) {
	s.endOnce.Do(func() {
		s.mu.Lock()
		s.why = why
		s.mu.Unlock()
		s.out.CloseWithError(fmt.Errorf("%w (%s)", io.ErrUnexpectedEOF, why))
		close(s.over)
	})
}

func (s *sandbox) killed() bool {
	select {
	case <-s.ctx.Done():
		return true
	default:
		return false
	}
}

// read copies the runner's stdout into the Session's pipe until the
// sandbox ends or the stream fails for good (the SDK has reopened it from
// its last entry id as long as it could).
func (s *sandbox) read() {
	_, err := io.Copy(s.out, s.msb.Stdout)
	if s.killed() {
		return
	}
	if err == nil {
		// The runner has ended: give its last words on stderr, a separate
		// stream, a moment to arrive.
		t := time.NewTimer(2 * time.Second)
		select {
		case <-s.stderrDone:
		case <-t.C:
		}
		t.Stop()
		s.end(s.exitReason())
		return
	}
	if errors.Is(err, io.ErrClosedPipe) {
		return // the Session is gone
	}
	if status.Code(err) == codes.NotFound {
		s.end(fmt.Sprintf("the Modal sandbox %s no longer exists (%s)", s.id, capString(err.Error(), 300)))
		return
	}
	s.end("the output stream from the Modal sandbox broke and could not be reopened: " + capString(err.Error(), 300))
}

// exitReason asks Modal how the sandbox ended, once its output has.
func (s *sandbox) exitReason() string {
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	code, err := s.msb.Poll(ctx, nil)
	switch {
	case err != nil:
		return "the sandbox's output ended, and Modal did not say why: " + capString(err.Error(), 300)
	case code == nil:
		return "the sandbox's output ended while Modal reports it still running"
	case *code == 124:
		return fmt.Sprintf("the Modal sandbox %s reached the end of its lifetime (%s, which Modal cannot extend; --sandbox-timeout sets it) or its idle timeout, and Modal stopped it", s.id, s.e.params.Timeout)
	case *code == 137:
		return fmt.Sprintf("the Modal sandbox %s was terminated", s.id)
	case *code == 127:
		return fmt.Sprintf("the runner could not start (exit code 127): the image %s must have python3 on its PATH (--modal-image)", s.e.image)
	}
	return fmt.Sprintf("the runner exited with code %d", *code)
}

// Kill terminates the sandbox in the background; Died and Ended report
// when Modal has answered.
func (s *sandbox) Kill() {
	s.killOnce.Do(func() {
		s.cancel()
		s.end("the sandbox was terminated")
		s.msb.Stdout.Close()
		s.msb.Stderr.Close()
		go func() {
			defer close(s.termDone)
			defer s.e.forget(s)
			ctx, cancel := context.WithTimeout(context.Background(), s.e.killTimeout)
			defer cancel()
			// Detach releases the sandbox's command router connection (V2),
			// which otherwise outlives the sandbox until it has been idle.
			defer s.msb.Detach()
			if _, err := s.msb.Terminate(ctx, nil); err != nil && status.Code(err) != codes.NotFound {
				s.e.logger.Warn(fmt.Sprintf("modal: terminate sandbox %s: %v; it ends at its idle timeout (%s)", s.id, err, s.e.params.IdleTimeout))
				return
			}
			s.mu.Lock()
			s.gone = true
			s.mu.Unlock()
		}()
	})
}

// Died waits up to d for the runner to end and says why.
func (s *sandbox) Died(d time.Duration) string {
	t := time.NewTimer(d)
	defer t.Stop()
	wait := s.over
	if s.killed() {
		wait = s.termDone
	}
	select {
	case <-wait:
	case <-t.C:
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	why := s.why
	if tl := strings.TrimSpace(s.stderr.String()); tl != "" {
		why += ": " + tl
	}
	return why
}

// Ended reports whether Modal confirmed the sandbox terminated.
func (s *sandbox) Ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gone
}

// stdin is the Session's writer: each write becomes Stdin writes of at
// most maxInput bytes, in order, each waiting for the previous one.
type stdin struct {
	s *sandbox
}

// maxInput bounds the bytes of one SandboxStdinWrite.
var maxInput = 256 << 10

// inputTimeout bounds one stdin write (the SDK's own has no deadline).
var inputTimeout = 30 * time.Second

func (w stdin) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		chunk := p[n:min(len(p), n+maxInput)]
		done := make(chan error, 1)
		// The SDK writes under context.Background(): an unanswered write
		// is abandoned here, and ends when Modal answers or Close closes
		// the connection.
		go func() {
			_, err := w.s.msb.Stdin.Write(chunk)
			done <- err
		}()
		t := time.NewTimer(inputTimeout)
		select {
		case err := <-done:
			t.Stop()
			if err != nil {
				if w.s.killed() {
					return n, errors.New("modal: sandbox terminated")
				}
				why := capString(err.Error(), 300)
				switch status.Code(err) {
				case codes.NotFound, codes.FailedPrecondition:
					why = w.s.exitReason() + " (" + why + ")"
				}
				w.s.end("a write to the sandbox's stdin failed: " + why)
				return n, fmt.Errorf("modal: write to the sandbox: %s", why)
			}
		case <-w.s.ctx.Done():
			t.Stop()
			return n, errors.New("modal: sandbox terminated")
		case <-t.C:
			why := fmt.Sprintf("Modal did not answer a write to the sandbox's stdin within %s", inputTimeout)
			w.s.end(why)
			return n, errors.New("modal: " + why)
		}
		n += len(chunk)
	}
	return n, nil
}

// tail keeps the last 4 KiB of the runner's stderr.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-4096:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func capString(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
