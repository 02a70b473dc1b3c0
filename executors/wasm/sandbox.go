package wasm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"

	"github.com/star-agent/star-agent/executors/internal/spawn"
	"github.com/star-agent/star-agent/executors/runner"
)

// Both kinds of interpreter below are runner.Sandbox values.
var (
	_ runner.Sandbox = (*inProcess)(nil)
	_ runner.Sandbox = (*childProcess)(nil)
)

// inProcess runs the interpreter on a goroutine of this process, under a
// runtime with close-on-context-done, so cancelling ictx stops it.
type inProcess struct {
	sess   *runner.Session
	cancel context.CancelFunc
	stop   chan struct{}
	once   sync.Once
	stdin  *io.PipeWriter
	stdout *io.PipeReader
	done   chan struct{}
	err    error
	stderr *runner.Tail
}

func startInProcess(eng *engine, g guestSpec) (*inProcess, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &inProcess{stop: make(chan struct{}), stdin: inW, stdout: outR, done: make(chan struct{}), stderr: &runner.Tail{}}
	cfg, err := g.moduleConfig(inR, outW, s.stderr, s.stop)
	if err != nil {
		return nil, err
	}
	ictx, cancel := context.WithCancel(context.Background())
	ictx = experimental.WithMemoryAllocator(ictx, memoryAllocator())
	s.cancel = cancel
	go func() {
		defer close(s.done)
		mod, err := eng.rt.InstantiateModule(ictx, eng.mod, cfg)
		if mod != nil {
			mod.Close(context.Background())
		}
		s.err = err
		outW.CloseWithError(io.EOF)
		inR.Close()
	}()
	s.sess = runner.NewSession(outR, inW)
	return s, nil
}

func (s *inProcess) Session() *runner.Session { return s.sess }

func (s *inProcess) Kill() {
	s.once.Do(func() {
		close(s.stop)
		s.cancel()
		s.stdin.CloseWithError(errors.New("sandbox killed"))
		s.stdout.Close()
	})
}

func (s *inProcess) Ended() bool { return isClosed(s.done) }

func (s *childProcess) Ended() bool { return isClosed(s.done) }

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func (s *inProcess) Died(d time.Duration) string {
	select {
	case <-s.done:
	case <-time.After(d):
		return ""
	}
	return exitReason(s.err, s.stderr.String())
}

func exitReason(err error, stderr string) string {
	var exit *sys.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 0 {
		err = nil
	}
	var parts []string
	if err != nil {
		msg := err.Error()
		if i := strings.Index(msg, "\nwasm stack trace:"); i >= 0 {
			msg = msg[:i]
		}
		parts = append(parts, msg)
	}
	if s := strings.TrimSpace(stderr); s != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, ": ")
}

// childEnv names the variable that turns a process into a sandbox child;
// its value is the JSON guestSpec.
const childEnv = "STAR_AGENT_WASM_CHILD"

// handshakeFD is the child's descriptor on which it tells the parent that
// it took over (see spawn.Handshake).
const handshakeFD = 3

// RunChildIfRequested runs this process as a sandbox child, and exits,
// when a wasm Executor of a parent process started it as one; otherwise
// it returns at once. With CancelProcess (the default) the executor runs
// the interpreter in a copy of the program itself, so a program that
// embeds it must call RunChildIfRequested first thing in main, before it
// reads flags or starts anything (a test binary: in TestMain):
//
//	func main() {
//		wasm.RunChildIfRequested()
//		...
//	}
//
// If main does not call it, the copy runs as the program itself, with one
// unknown flag as its arguments, and the parent's Execute fails with an
// error saying that main must call wasm.RunChildIfRequested: at once when
// the program exits on the unknown flag, after the sandbox's start timeout
// when it runs on. A copy started that way never starts sandboxes of its
// own. CancelClose needs no child process.
func RunChildIfRequested() {
	spec, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	if err := spawn.Announce(handshakeFD); err != nil {
		fmt.Fprintln(os.Stderr, "wasm child:", err)
		os.Exit(2)
	}
	os.Exit(runChild(spec))
}

// runChild is the main function of a sandbox child process: the runtime
// without close-on-context-done (full speed), stdio straight to the guest.
// The parent stops it with SIGKILL.
func runChild(spec string) int {
	var g guestSpec
	if err := json.Unmarshal([]byte(spec), &g); err != nil {
		fmt.Fprintln(os.Stderr, "wasm child:", err)
		return 2
	}
	ctx := context.Background()
	eng, err := newEngine(ctx, engineKey{cacheDir: g.CacheDir, pages: g.Pages})
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasm child:", err)
		return 2
	}
	// The protocol is on the child's stdin and stdout; whatever the guest
	// writes to its own stdout or stderr goes to the child's stderr, which
	// the parent keeps the tail of.
	cfg, err := g.moduleConfig(os.Stdin, os.Stdout, os.Stderr, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasm child:", err)
		return 2
	}
	ctx = experimental.WithMemoryAllocator(ctx, memoryAllocator())
	_, err = eng.rt.InstantiateModule(ctx, eng.mod, cfg)
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		return int(exit.ExitCode())
	}
	if err != nil {
		msg := err.Error()
		if i := strings.Index(msg, "\nwasm stack trace:"); i >= 0 {
			msg = msg[:i]
		}
		fmt.Fprintln(os.Stderr, msg)
		return 3
	}
	return 0
}

// childProcess runs the interpreter in a re-executed copy of this program.
type childProcess struct {
	sess    *runner.Session
	cmd     *exec.Cmd
	once    sync.Once
	done    chan struct{}
	err     error
	stderr  *runner.Tail
	closers []io.Closer
	// handshake says whether the child took over (RunChildIfRequested).
	handshake *spawn.Handshake
}

// startChild starts exe ("" for this program) as a sandbox child.
func startChild(exe string, g guestSpec) (*childProcess, error) {
	if _, ok := os.LookupEnv(childEnv); ok {
		// This process is a child whose main did not take over: without
		// this, it would start children of its own without end.
		return nil, errors.New("wasm: child process: this process was started as a sandbox child, but its main did not call wasm.RunChildIfRequested")
	}
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("wasm: child process: %w", err)
		}
	}
	spec, err := json.Marshal(g)
	if err != nil {
		return nil, err
	}
	hs, err := spawn.NewHandshake()
	if err != nil {
		return nil, fmt.Errorf("wasm: child process: %w", err)
	}
	cmd := exec.Command(exe, spawn.ChildArg)
	cmd.Env = []string{childEnv + "=" + string(spec)}
	cmd.Dir = "/"
	setParentDeathSignal(cmd)
	s := &childProcess{cmd: cmd, done: make(chan struct{}), stderr: &runner.Tail{}, handshake: hs}
	cmd.Stderr = s.stderr
	// Pipes of our own, not cmd.StdinPipe/StdoutPipe: Wait closes those,
	// and the runner's last message must stay readable after the exit.
	inR, inW, err := os.Pipe()
	if err != nil {
		hs.Started()
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		hs.Started()
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	// fd 3 in the child: handshakeFD.
	cmd.ExtraFiles = []*os.File{hs.ChildEnd()}
	err = spawn.Start(cmd) // from a thread that lives as long as the process: see package spawn
	hs.Started()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("wasm: child process: %w", err)
	}
	s.closers = []io.Closer{inW, outR}
	go func() {
		defer close(s.done)
		s.err = cmd.Wait()
	}()
	s.sess = runner.NewSession(outR, inW)
	return s, nil
}

func (s *childProcess) Session() *runner.Session { return s.sess }

func (s *childProcess) Kill() {
	s.once.Do(func() {
		s.cmd.Process.Kill()
		for _, c := range s.closers {
			c.Close()
		}
	})
}

func (s *childProcess) Died(d time.Duration) string {
	select {
	case <-s.done:
	case <-time.After(d):
		return ""
	}
	if s.handshake.Failed(time.Second) {
		return spawn.NotStarted("wasm.RunChildIfRequested()", strings.TrimSpace(s.stderr.String()))
	}
	var exit *exec.ExitError
	if errors.As(s.err, &exit) && exit.ExitCode() == 0 {
		return strings.TrimSpace(s.stderr.String())
	}
	return exitReason(s.err, s.stderr.String())
}
