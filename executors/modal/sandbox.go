package modal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	modalsdk "github.com/modal-labs/modal-client/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/star-agent/star-agent/executors/internal/cloud"
	"github.com/star-agent/star-agent/executors/runner"
)

// sandbox is one Modal sandbox whose entrypoint is the runner: a
// runner.Sandbox. The SDK's Stdout reader (SandboxGetLogs, reopened from
// the last entry id) is copied into a pipe the Session reads, so that the
// reason the sandbox ended can be attached to the end of the stream; the
// Session's writes become Stdin writes; Kill terminates the sandbox.
type sandbox struct {
	*cloud.Life
	id   string
	e    *Executor
	msb  *modalsdk.Sandbox
	sess *runner.Session

	stderrDone chan struct{} // closed when the stderr stream has ended
}

var _ runner.Sandbox = (*sandbox)(nil)

func newSandbox(e *Executor, msb *modalsdk.Sandbox) *sandbox {
	pr, pw := io.Pipe()
	s := &sandbox{Life: cloud.NewLife(pw), id: msb.SandboxID, e: e, msb: msb, stderrDone: make(chan struct{})}
	s.sess = runner.NewSession(pr, stdin{s})
	go s.read()
	go func() {
		defer close(s.stderrDone)
		io.Copy(&s.Stderr, msb.Stderr)
	}()
	return s
}

func (s *sandbox) String() string { return "modal sandbox " + s.id }

func (s *sandbox) Session() *runner.Session { return s.sess }

// read copies the runner's stdout into the Session's pipe until the
// sandbox ends or the stream fails for good (the SDK has reopened it from
// its last entry id as long as it could).
func (s *sandbox) read() {
	_, err := io.Copy(s.Out, s.msb.Stdout)
	if s.Killed() {
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
		s.End(s.exitReason())
		return
	}
	if errors.Is(err, io.ErrClosedPipe) {
		return // the Session is gone
	}
	if status.Code(err) == codes.NotFound {
		s.End(fmt.Sprintf("the Modal sandbox %s no longer exists (%s)", s.id, cloud.CapString(err.Error(), 300)))
		return
	}
	s.End("the output stream from the Modal sandbox broke and could not be reopened: " + cloud.CapString(err.Error(), 300))
}

// exitReason asks Modal how the sandbox ended, once its output has.
func (s *sandbox) exitReason() string {
	ctx, cancel := context.WithTimeout(s.Context(), 10*time.Second)
	defer cancel()
	code, err := s.msb.Poll(ctx, nil)
	switch {
	case err != nil:
		return "the sandbox's output ended, and Modal did not say why: " + cloud.CapString(err.Error(), 300)
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
	if !s.Life.Kill("the sandbox was terminated", s.terminate) {
		return
	}
	s.msb.Stdout.Close()
	s.msb.Stderr.Close()
}

// terminate asks Modal to terminate the sandbox and reports whether it
// confirmed.
func (s *sandbox) terminate() bool {
	defer s.e.sandboxes.Forget(s)
	ctx, cancel := context.WithTimeout(context.Background(), s.e.killTimeout)
	defer cancel()
	// Detach releases the sandbox's command router connection (V2),
	// which otherwise outlives the sandbox until it has been idle.
	defer s.msb.Detach()
	if _, err := s.msb.Terminate(ctx, nil); err != nil && status.Code(err) != codes.NotFound {
		s.e.logger.Warn(fmt.Sprintf("modal: terminate sandbox %s: %v; it ends at its idle timeout (%s)", s.id, err, s.e.params.IdleTimeout))
		return false
	}
	return true
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
				if w.s.Killed() {
					return n, errors.New("modal: sandbox terminated")
				}
				why := cloud.CapString(err.Error(), 300)
				switch status.Code(err) {
				case codes.NotFound, codes.FailedPrecondition:
					why = w.s.exitReason() + " (" + why + ")"
				}
				w.s.End("a write to the sandbox's stdin failed: " + why)
				return n, fmt.Errorf("modal: write to the sandbox: %s", why)
			}
		case <-w.s.Context().Done():
			t.Stop()
			return n, errors.New("modal: sandbox terminated")
		case <-t.C:
			why := fmt.Sprintf("Modal did not answer a write to the sandbox's stdin within %s", inputTimeout)
			w.s.End(why)
			return n, errors.New("modal: " + why)
		}
		n += len(chunk)
	}
	return n, nil
}
