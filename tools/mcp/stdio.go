package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// process is a stdio server's process. We own it, rather than using the
// SDK's CommandTransport, to keep its exit status and stderr for the
// messages that say why a server died, and to stop its whole process
// group (npx, uvx and shell wrappers start children).
type process struct {
	cmd    *exec.Cmd
	tail   *tail
	exited chan struct{} // closed once the process is reaped
	err    error         // cmd.Wait's error, set before exited closes
	out    *lineCap      // its stdout
}

func (p *process) status() string {
	if p.err == nil {
		return "exit status 0"
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.String()
	}
	return p.err.Error()
}

// tailSuffix is ". Its stderr ended with: <last lines>", or "" if the
// server wrote nothing.
func (p *process) tailSuffix() string {
	t := p.tail.String()
	if t == "" {
		return ""
	}
	return ". Its stderr ended with: " + t
}

// Grace periods when stopping a server: after stdin closes, then after
// SIGTERM, before SIGKILL.
var (
	stopGrace = 2 * time.Second
	termGrace = 2 * time.Second
)

// stop ends the process: stdin is closed by the session, so a well-behaved
// server exits; the rest of its group is then signalled.
func (p *process) stop() error {
	select {
	case <-p.exited:
	case <-time.After(stopGrace):
		signalGroup(p.cmd, syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(termGrace):
			signalGroup(p.cmd, syscall.SIGKILL)
			<-p.exited
		}
	}
	// Children left behind by a server that exited get the same.
	signalGroup(p.cmd, syscall.SIGKILL)
	return nil
}

// isExitAfterClose reports an error that only says the server did not
// exit cleanly when told to stop, which is not worth reporting.
func isExitAfterClose(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee)
}

func dialStdio(ctx context.Context, label string, argv []string, opts Options) (*conn, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: cannot start %s: %v (check the command and $PATH)", label, argv[0], err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	t := &tail{max: tailBytes, log: opts.logger(), label: label}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Env = serverEnv(opts.Env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, t
	cmd.WaitDelay = time.Second // a grandchild holding stderr does not block Wait
	setGroup(cmd)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("MCP server %s: cannot start: %v", label, err)
	}
	p := &process{cmd: cmd, tail: t, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	p.out = &lineCap{rc: outR, max: opts.maxMessage()}
	transport := &sdk.IOTransport{Reader: p.out, Writer: inW, MaxLineLength: -1}
	cs, err := opts.client().Connect(ctx, transport, nil)
	if err != nil {
		inW.Close()
		outR.Close()
		var why string
		select {
		case <-p.exited:
			why = fmt.Sprintf("it exited (%s) before completing the MCP handshake", p.status())
		case <-time.After(500 * time.Millisecond):
			why = fmt.Sprintf("the MCP handshake failed: %v", err)
			if ctx.Err() != nil {
				why = "it did not complete the MCP handshake in time"
			}
		}
		p.stop()
		return nil, fmt.Errorf("MCP server %s: %s (check that the command starts an MCP server on stdio)%s", label, why, p.tailSuffix())
	}
	return &conn{cs: cs, proc: p}, nil
}

// lineCap caps the lines (messages) read from a server's stdout, and
// remembers that one was too long, for the message that says why the
// connection ended.
type lineCap struct {
	rc       io.ReadCloser
	max      int
	cur      int // bytes of the current line so far
	tooLarge atomic.Bool
	eof      atomic.Bool // the server closed its stdout (or exited)
}

func (l *lineCap) Read(p []byte) (int, error) {
	n, err := l.rc.Read(p)
	if err == io.EOF {
		l.eof.Store(true)
	}
	for _, b := range p[:n] {
		if b == '\n' {
			l.cur = 0
			continue
		}
		l.cur++
		if l.cur > l.max {
			l.tooLarge.Store(true)
			return 0, fmt.Errorf("MCP message larger than %d bytes", l.max)
		}
	}
	return n, err
}

func (l *lineCap) Close() error { return l.rc.Close() }

// tailBytes is how much of a server's stderr is kept.
const tailBytes = 2048

// tail keeps the last max bytes written to it (a server's stderr) and
// logs complete lines at debug level.
type tail struct {
	max   int
	log   *slog.Logger
	label string

	mu   sync.Mutex
	buf  []byte
	line []byte // the current incomplete line, for the log, capped
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	for _, b := range p {
		if b == '\n' {
			t.log.Debug("mcp server stderr", "server", t.label, "line", string(t.line))
			t.line = t.line[:0]
		} else if len(t.line) < 1024 {
			t.line = append(t.line, b)
		}
	}
	return len(p), nil
}

// String returns the last lines kept, trimmed, on one line each, joined
// with " | " if there are several; the first line may be cut.
func (t *tail) String() string {
	t.mu.Lock()
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
	}
	s := strings.TrimSpace(strings.ToValidUTF8(string(b), "?"))
	t.mu.Unlock()
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, " | ")
}
