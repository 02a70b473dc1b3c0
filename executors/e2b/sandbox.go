package e2b

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	"github.com/star-agent/star-agent/executors/internal/cloud"
	"github.com/star-agent/star-agent/executors/runner"
)

// sandbox is one E2B sandbox running the runner: a runner.Sandbox. Its
// runner's stdout reaches the Session through a pipe fed by the event
// stream (re-attached with Connect when it drops); the Session's writes
// become SendInput calls; a goroutine extends the sandbox's lifetime until
// Kill, which deletes it.
type sandbox struct {
	*cloud.Life
	id   string
	pid  uint32
	e    *Executor
	envd *envd
	sess *runner.Session

	// lineOpen is set while the last stdout byte delivered was not a
	// newline (a protocol line is partly delivered). Only the stream
	// goroutine uses it.
	lineOpen bool
}

var _ runner.Sandbox = (*sandbox)(nil)

func (s *sandbox) String() string { return "e2b sandbox " + s.id }

func (s *sandbox) Session() *runner.Session { return s.sess }

// Kill deletes the sandbox in the background; Died and Ended report when
// that is done.
func (s *sandbox) Kill() {
	s.Life.Kill("the sandbox was killed", func() bool {
		defer s.e.sandboxes.Forget(s)
		ctx, cancel := context.WithTimeout(context.Background(), s.e.killTimeout)
		defer cancel()
		if err := s.e.api.kill(ctx, s.id); err != nil && !isNotFound(err) {
			s.e.logf("e2b: %v; it ends at its timeout", err)
			return false
		}
		return true
	})
}

// read copies the event stream into the Session's pipe, re-attaching when
// the stream drops, until the runner ends or the sandbox is killed.
func (s *sandbox) read(st *stream) {
	for {
		err := s.drain(st)
		st.Close()
		if err == nil || s.Killed() {
			return
		}
		why, gone := s.lost(err)
		if gone {
			s.End(why)
			return
		}
		if s.lineOpen {
			// envd does not replay output written while no client is
			// attached, so the rest of this line may be lost.
			s.End("the output stream from the sandbox broke in the middle of a message (" + why + "), and what was written meanwhile cannot be recovered")
			return
		}
		st = s.reattach(why)
		if st == nil {
			return
		}
	}
}

// drain reads events until the runner ends (nil) or the stream breaks.
func (s *sandbox) drain(st *stream) error {
	for st.Receive() {
		ev := st.Msg().Event
		switch {
		case ev.Data != nil:
			if len(ev.Data.Stdout) > 0 {
				// The Session may take its time to read (a tool call
				// runs): that is not the stream going silent.
				st.idle.Stop()
				_, err := s.Out.Write(ev.Data.Stdout)
				st.idle.Reset(st.timeout)
				if err != nil {
					return nil // the Session is gone (killed)
				}
				s.lineOpen = ev.Data.Stdout[len(ev.Data.Stdout)-1] != '\n'
			}
			if len(ev.Data.Stderr) > 0 {
				s.Stderr.Write(ev.Data.Stderr)
			}
		case ev.End != nil:
			why := fmt.Sprintf("the runner exited with code %d", ev.End.ExitCode)
			if ev.End.Status != "" {
				why = "the runner ended: " + cloud.CapString(ev.End.Status, 200)
			}
			if ev.End.Error != "" {
				why += " (" + cloud.CapString(ev.End.Error, 500) + ")"
			}
			s.End(why)
			return nil
		}
	}
	if err := st.Err(); err != nil {
		return err
	}
	return io.ErrUnexpectedEOF // the stream ended without an end event
}

// Streams: envd is asked for a keepalive every keepaliveInterval, and a
// stream silent for idleTimeout is taken for dropped (a connection that
// died without a reset). Executors copy these (tests change their copy).
const (
	keepaliveInterval = 15 * time.Second
	idleTimeout       = 3 * keepaliveInterval
)

// stream is an event stream with a watchdog: when nothing arrives for
// idleTimeout, its context is cancelled and Err says so.
type stream struct {
	*connect.ServerStreamForClient[eventResponse]
	cancel  context.CancelFunc
	idle    *time.Timer
	timeout time.Duration
	silent  atomic.Bool
}

func (s *sandbox) open(call func(context.Context) (*connect.ServerStreamForClient[eventResponse], error)) (*stream, error) {
	ctx, cancel := context.WithCancel(s.Context())
	cs, err := call(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	st := &stream{ServerStreamForClient: cs, cancel: cancel, timeout: s.e.idleTimeout}
	st.idle = time.AfterFunc(st.timeout, func() {
		st.silent.Store(true)
		cancel()
	})
	return st, nil
}

func (st *stream) Receive() bool {
	if !st.ServerStreamForClient.Receive() {
		return false
	}
	st.idle.Reset(st.timeout)
	return true
}

func (st *stream) Err() error {
	err := st.ServerStreamForClient.Err()
	if err != nil && st.silent.Load() {
		return fmt.Errorf("the stream was silent for %s, keepalives included", st.timeout)
	}
	return err
}

func (st *stream) Close() error {
	st.idle.Stop()
	st.cancel()
	return st.ServerStreamForClient.Close()
}

// lost says why a stream or call failed, and whether the runner is gone
// for good: its process ended, or the sandbox no longer exists.
func (s *sandbox) lost(err error) (string, bool) {
	why := cloud.CapString(err.Error(), 300)
	var ce *connect.Error
	if errors.As(err, &ce) {
		switch ce.Code() {
		case connect.CodeNotFound:
			return fmt.Sprintf("the runner process %d has ended (envd: %s)", s.pid, cloud.CapString(ce.Message(), 200)), true
		case connect.CodeResourceExhausted:
			if strings.Contains(ce.Message(), "larger than configured max") {
				return "the sandbox sent an output event bigger than " + fmt.Sprint(maxEvent) + " bytes", true
			}
		case connect.CodeUnauthenticated, connect.CodePermissionDenied:
			return "envd refused the access token: " + cloud.CapString(ce.Message(), 200), true
		}
	}
	// The edge answers for a sandbox that is gone (404 or 502); ask the
	// control plane whether it still exists.
	ctx, cancel := context.WithTimeout(s.Context(), 10*time.Second)
	defer cancel()
	if _, ierr := s.e.api.info(ctx, s.id); isNotFound(ierr) {
		return s.expired(), true
	}
	return why, false
}

func (s *sandbox) expired() string {
	return fmt.Sprintf("the E2B sandbox %s no longer exists: it expired (its lifetime is %s, extended while star-agent runs) or was killed", s.id, s.e.timeout)
}

// reattach connects to the runner again, with backoff, for up to about
// 15 s. It returns nil after ending the sandbox's runner when it cannot.
func (s *sandbox) reattach(why string) *stream {
	delay := 50 * time.Millisecond
	deadline := time.Now().Add(15 * time.Second)
	for {
		st, err := s.open(func(ctx context.Context) (*connect.ServerStreamForClient[eventResponse], error) {
			return s.envd.connectProcess(ctx, s.pid)
		})
		if err == nil && st.Receive() {
			if ev := st.Msg().Event; ev.Start != nil && ev.Start.Pid == s.pid {
				return st
			}
			st.Close()
			s.End("envd answered Connect with an event other than the start of the runner")
			return nil
		}
		if err == nil {
			err = st.Err()
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			st.Close()
		}
		if s.Killed() {
			return nil
		}
		w, gone := s.lost(err)
		if gone {
			s.End(w)
			return nil
		}
		if time.Now().After(deadline) {
			s.End("the connection to the sandbox broke (" + why + ") and could not be re-established: " + w)
			return nil
		}
		t := time.NewTimer(delay)
		select {
		case <-s.Context().Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		delay = min(2*delay, time.Second)
	}
}

// extend keeps the sandbox alive: every half lifetime it asks for a full
// lifetime from now, until Kill. A 404 means the sandbox expired.
func (s *sandbox) extend() {
	every := max(s.e.timeout/2, 100*time.Millisecond)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.Context().Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(s.Context(), every)
		err := s.e.api.setTimeout(ctx, s.id, s.e.timeout)
		cancel()
		if isNotFound(err) {
			s.End(s.expired())
			return
		}
		if err != nil && !s.Killed() {
			s.e.logf("e2b: %v", err)
		}
	}
}

// stdin is the Session's writer: each write becomes SendInput calls of at
// most maxInput bytes, in order, each waiting for the previous one.
type stdin struct {
	s *sandbox
}

// maxInput bounds the bytes of one SendInput (base64 makes the request a
// third bigger); executors copy it.
const maxInput = 256 << 10

// inputTimeout bounds one SendInput, retries included.
const inputTimeout = 30 * time.Second

func (w stdin) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		chunk := p[n:min(len(p), n+w.s.e.maxInput)]
		ctx, cancel := context.WithTimeout(w.s.Context(), inputTimeout)
		err := w.s.envd.input(ctx, w.s.pid, chunk)
		cancel()
		if err != nil {
			if w.s.Killed() {
				return n, errors.New("e2b: sandbox killed")
			}
			why, _ := w.s.lost(err)
			return n, fmt.Errorf("e2b: send input: %s", why)
		}
		n += len(chunk)
	}
	return n, nil
}
