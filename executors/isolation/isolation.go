// Package isolation runs an in-process engine (the Starlark engine of
// package starlarkexec) in a child process of the same program, under OS
// limits, so that what the engine's own limits cannot stop (a builtin that
// cannot be pre-empted, a Go stack overflow, memory the accounting missed)
// ends in the child and never in the host. A crash becomes an error result
// and a fresh child, and the model is told that its state was lost.
//
// The host speaks the runner protocol (package runner, the same Session the
// Python sandboxes use) on two pipes of the child (fds 3 and 4, out of reach
// of anything the engine runs, which has no file access anyway). The child
// drives an ordinary in-process engine (an Engine, built by name); its
// tools are stubs that send a call message and wait for the return, so
// tools and managed agents run in the host. A third pipe (fd 5) carries
// printed output as it is produced. What the runner protocol has no
// field for (the step count, NeedsPython, whether work the engine
// abandoned still runs, how much output went to fd 5) is a trailer in
// the "trailer" member of each execution's result (see child.go and
// runner.Session.ExecTrailer). The host reads the child's answers in the
// goroutine that executes (runner.NewPolledSession): a step's hand-off
// costs mostly threads woken, and that saves some (BenchmarkIsolatedCPU).
//
// The child is a copy of the program itself: a program that uses this
// package calls RunChildIfRequested first thing in main.
package isolation

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/internal/spawn"
	"github.com/star-agent/star-agent/executors/runner"
	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/tool"
)

// Isolation modes, as a router's configuration and the CLI's --isolation
// flag name them.
const (
	// None runs the engine in the calling process.
	None = "none"
	// Process runs the engine in a child process under OS limits.
	Process = "process"
)

// childEnv names the variable that turns a process into an engine child;
// its value is the JSON childSpec. RunChildIfRequested (child.go)
// checks it, which is why any program that calls it first thing in main
// (a go test binary: in TestMain) can serve as the child.
const childEnv = "STAR_AGENT_LOCAL_CHILD"

// handshakeFD is the child's descriptor on which it tells the host that it
// took over (see spawn.Handshake); 3, 4 and 5 carry the protocol.
const handshakeFD = 6

// deadlineGrace is how long after the execution's deadline the host waits
// for the child's own TimeoutError before it kills the child: the child's
// engine abandons a thread that ignores cancellation after 50 ms.
const deadlineGrace = 150 * time.Millisecond

// startTimeout bounds starting a child and installing its tools and
// variables.
const startTimeout = 10 * time.Second

// stateLost is the note the model gets when the child was replaced.
const stateLost = "the Starlark engine was restarted in a new process: variables, functions and imports defined by earlier code are gone (tools and the task's variables are still there); define again what you need"

// childSpec is what a child needs before it serves requests.
type childSpec struct {
	Engine       string           `json:"engine"`
	Limits       executors.Limits `json:"limits"`
	Imports      []string         `json:"imports"`
	ParentPID    int              `json:"parent_pid"`
	MemoryLimit  int64            `json:"memory_limit"`          // debug.SetMemoryLimit, 0 = none
	AddressSpace int64            `json:"address_space"`         // RLIMIT_AS beyond what the child maps at rest, 0 = none
	CPUPerExec   time.Duration    `json:"cpu_per_exec"`          // RLIMIT_CPU added before each execution, 0 = none
	Unaccounted  bool             `json:"unaccounted,omitempty"` // tests: the engine's own memory budget is lifted
	TestTools    bool             `json:"test_tools,omitempty"`  // tests: tools block and overflow inside the child
	Rerun        bool             `json:"rerun,omitempty"`       // Options.Rerun
	Protocol     int              `json:"protocol"`              // childProtocol
}

// Options configures an Executor. The zero value is usable.
type Options struct {
	// Engine names the in-process engine the child runs; "" means
	// "starlark" (package starlarkexec), the only one today.
	Engine string
	// Limits bound each execution; zero fields take the defaults. The
	// engine in the child enforces them; the OS limits of the child are
	// derived from them.
	Limits executors.Limits
	// AuthorizedImports extends executors.DefaultAuthorizedImports.
	AuthorizedImports []string
	// Stdout, if set, receives printed output as the child produces it.
	Stdout io.Writer
	// Rerun is passed to the engine (see starlarkexec.Options.Rerun).
	Rerun bool
}

// Executor runs an in-process engine in a child process of this program
// under OS limits. Tools and the variables the caller sets live in this
// process and are installed again in a fresh child when one has to be
// started. Executions of one Executor are serialised.
type Executor struct {
	spec   childSpec
	engine engine // the engine's entry in the table (engine.go)
	live   io.Writer
	limit  memoryLimit // the OS memory limit chosen for children

	mu     sync.Mutex
	child  *child
	tools  []tool.Tool
	vars   map[string]any
	closed bool
	// running is child, readable without mu: Close kills it at once
	// rather than wait for an execution to end, and ChildPID reads it
	// from within a tool call.
	running atomic.Pointer[child]
	closing atomic.Bool
	// lost says why the child was replaced outside any result the model
	// saw (a cancelled execution); the next result carries it.
	lost string
}

// New returns an Executor that runs the engine opts names in a child
// process, started at the first request that needs it.
func New(opts Options) (*Executor, error) { return newWith(opts, nil) }

// newWith is New with a hook that tests use to change the child's limits
// before any child starts.
func newWith(opts Options, tweak func(*Executor)) (*Executor, error) {
	if opts.Engine == "" {
		opts.Engine = starlarkexec.Engine
	}
	eng, ok := engines[opts.Engine]
	if !ok {
		return nil, fmt.Errorf("isolation: engine %q is not known: use %s", opts.Engine, strings.Join(slices.Sorted(maps.Keys(engines)), ", "))
	}
	if err := opts.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	limits := opts.Limits.WithDefaults()
	x := &Executor{
		spec:   childSpec{Engine: opts.Engine, Limits: limits, Imports: opts.AuthorizedImports, ParentPID: os.Getpid(), Rerun: opts.Rerun, Protocol: childProtocol},
		engine: eng,
		live:   opts.Stdout,
		limit:  chooseMemoryLimit(limits.MaxMemory),
		vars:   map[string]any{},
	}
	x.spec.CPUPerExec = cpuPerExec(limits.Timeout)
	if tweak != nil {
		tweak(x)
	}
	x.spec.MemoryLimit = x.limit.goLimit
	x.spec.AddressSpace = x.limit.addressSpace
	return x, nil
}

// Mechanism says how the OS bounds the memory of the executor's child on
// this machine: "cgroup" (a cgroup v2 memory.max of its own), "rlimit"
// (RLIMIT_AS) or "none".
func (x *Executor) Mechanism() string { return x.limit.mechanism }

// ChildPID returns the process id of the executor's child, or 0 when none
// runs (not started yet, or replaced after a crash).
func (x *Executor) ChildPID() int {
	c := x.running.Load()
	if c == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// CheckSyntax reports whether code parses as Python (see
// executors.SyntaxChecker), with the engine's front end in this process:
// it starts no child.
func (x *Executor) CheckSyntax(code string) error { return x.engine.checkSyntax(code) }

// ensure starts a child if none runs and installs the tools and variables.
func (x *Executor) ensure(ctx context.Context) error {
	if x.closed {
		return errors.New("local: executor is closed")
	}
	if x.child != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	c, err := startChild(x.spec, x.limit, x.live, x.spec.Limits.MaxOutput)
	if err != nil {
		return fmt.Errorf("local: start the engine's process: %w", err)
	}
	if err := x.setUp(ctx, c); err != nil {
		c.kill()
		if why := c.exitReason(time.Second); why != "" {
			err = fmt.Errorf("%w (%s)", err, why)
		}
		return fmt.Errorf("local: start the engine's process: %w", err)
	}
	x.child = c
	x.running.Store(c)
	return nil
}

func (x *Executor) setUp(ctx context.Context, c *child) error {
	name, err := c.sess.Ready(ctx)
	if err != nil {
		return err
	}
	if name != readyName {
		return fmt.Errorf("the engine's process is another build of this program: it speaks %q, this one %q (was the program replaced while it ran?)", name, readyName)
	}
	// The session caps printed output at the configured size, as the
	// child's engine does.
	if err := c.sess.Configure(ctx, runner.Config{MaxOutput: x.spec.Limits.MaxOutput, MaxMemory: x.spec.Limits.MaxMemory}); err != nil {
		return err
	}
	if len(x.tools) > 0 {
		if err := c.sess.SetTools(ctx, guard(x.tools)); err != nil {
			return err
		}
	}
	if len(x.vars) > 0 {
		if err := c.sess.SetVariables(ctx, x.vars); err != nil {
			return err
		}
	}
	return nil
}

// replace kills the child and forgets it; the next request starts another.
func (x *Executor) replace() {
	if x.child != nil {
		x.child.kill()
		x.child.exitReason(5 * time.Second) // reap it
		x.child = nil
		x.running.Store(nil)
	}
}

// Execute runs code in the child, starting one if none runs. A child that
// crashed, ran out of memory or did not stop at the deadline is replaced
// by a fresh one; the result says so, and that the code's state is gone.
func (x *Executor) Execute(ctx context.Context, code string) (executors.Result, error) {
	start := time.Now()
	x.mu.Lock()
	defer x.mu.Unlock()
	res := executors.Result{Engine: x.spec.Engine}
	if err := x.ensure(ctx); err != nil {
		return res, err
	}
	c := x.child
	// The child enforces the deadline itself; the host's own deadline,
	// a little later, is for what the child cannot stop. Both clocks
	// stop while a tool call waits for a person (executors.PauseClock):
	// the session tells the child.
	tctx, _, cancel := executors.StartClock(ctx, x.spec.Limits.Timeout+deadlineGrace)
	defer cancel()
	c.printed.take()
	out, raw, err := c.exec(tctx, code)
	if err == nil {
		tr, terr := c.trailer(raw, 2*time.Second)
		if terr == nil {
			out.Engine = x.spec.Engine
			out.Steps = tr.Steps
			if t := executors.TapeFrom(ctx); t != nil {
				t.Record(tr.Readings)
			}
			if out.Err != nil {
				out.Err.NeedsPython = tr.NeedsPython
				out.Err.Hint = executors.CapText(tr.Hint, 2000)
			}
			if tr.Stuck {
				// The child's engine abandoned a computation it could not
				// stop and started afresh (its result says so); the work
				// would take the child's CPU and memory for as long as it
				// runs. Replace the child.
				x.replace()
				if len(out.Notes) == 0 {
					out.Notes = append(out.Notes, stateLost)
				}
			}
			if x.lost != "" {
				out.Notes = append([]string{x.lost}, out.Notes...)
				x.lost = ""
			}
			out.Duration = time.Since(start)
			return out, nil
		}
		err = terr
	}
	// The child is gone, or busy with code nobody waits for: replace it.
	x.child = nil
	x.running.Store(nil)
	c.kill()
	why := c.exitReason(2 * time.Second)
	c.drained(time.Second)
	res.Stdout = c.printed.take()
	res.Duration = time.Since(start)
	if x.closing.Load() {
		return res, errors.New("local: executor closed during the execution")
	}
	if ctx.Err() != nil {
		x.lost = "the previous execution was cancelled, so " + stateLost
		return res, fmt.Errorf("local: execution stopped: %w", context.Cause(ctx))
	}
	x.lost = ""
	res.Notes = []string{stateLost}
	if tctx.Err() != nil {
		res.Err = &executors.ExecError{Type: "TimeoutError", Message: fmt.Sprintf("the code ran longer than the time limit of %s and could not be interrupted, so the Starlark engine's process was killed", x.spec.Limits.Timeout)}
		return res, nil
	}
	res.Err = crashError(why, err, c.oomKilled(), x.spec.Limits.MaxMemory, x.limit)
	return res, nil
}

// errToolStuck reports a tool call in the host that outlived the
// execution's deadline.
var errToolStuck = fmt.Errorf("%w: a tool call did not return by the deadline", runner.ErrBroken)

// exec runs code in the child, on the calling goroutine (the session
// reads the child's answers there: no hand-off between goroutines on the
// way). The session gives up on the child when ctx ends; a tool call it
// serves may ignore ctx, which guarded (below) does not wait for.
func (c *child) exec(ctx context.Context, code string) (executors.Result, json.RawMessage, error) {
	return c.sess.ExecTrailer(ctx, code)
}

// guarded is a host tool as the child's session calls it: a call that
// ignores its context is given up 100 ms after the context ends, as the
// in-process engine abandons such a call; the execution then ends
// without its result and the child is replaced (its session is broken by
// then, as ctx has ended).
type guarded struct{ tool.Tool }

func guard(tools []tool.Tool) []tool.Tool {
	out := make([]tool.Tool, len(tools))
	for i, t := range tools {
		out[i] = guarded{t}
	}
	return out
}

func (g guarded) Call(ctx context.Context, args map[string]any) (any, error) {
	type outcome struct {
		v   any
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		v, err := g.Tool.Call(ctx, args)
		done <- outcome{v, err}
	}()
	select {
	case o := <-done:
		return o.v, o.err
	case <-ctx.Done():
	}
	select {
	case o := <-done:
		return o.v, o.err
	case <-time.After(100 * time.Millisecond):
		return nil, errToolStuck
	}
}

// crashError describes the end of a child that died during an execution.
func crashError(why string, err error, oom bool, budget int64, limit memoryLimit) *executors.ExecError {
	if why == "" {
		why = err.Error()
	}
	mib := budget >> 20
	switch {
	case oom || strings.Contains(why, "out of memory") || strings.Contains(why, "cannot allocate memory"):
		return &executors.ExecError{Type: "MemoryError", Message: fmt.Sprintf("the code used more memory than the limit of %d MiB allows (the operating system stopped the Starlark engine's process: %s); use less memory, e.g. process the data in smaller pieces", mib, limit.describe())}
	case strings.Contains(why, "stack overflow") || strings.Contains(why, "stack exceeds"):
		return &executors.ExecError{Type: "RecursionError", Message: "the code is nested or recurses too deeply: the Starlark engine's process overflowed its stack and was stopped; write it with less nesting"}
	case strings.Contains(why, "CPU time limit"):
		return &executors.ExecError{Type: "TimeoutError", Message: "the code used more CPU time than the time limit allows; the Starlark engine's process was stopped"}
	}
	return &executors.ExecError{Type: "SystemError", Message: "the Starlark engine's process ended unexpectedly (" + why + ")"}
}

// SetTools makes tools callable from the code. They run in this process:
// the child's tools are stubs that call them here. Later calls add to and
// replace earlier tools by name.
func (x *Executor) SetTools(ctx context.Context, tools []tool.Tool) error {
	for _, t := range tools {
		if err := checkToolName(t.Spec().Name); err != nil {
			return err
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := context.Cause(ctx); err != nil {
		return fmt.Errorf("local: set tools: %w", err)
	}
	// Later calls add to and replace earlier tools by name, as in process.
	merged := make([]tool.Tool, 0, len(x.tools)+len(tools))
	for _, old := range x.tools {
		if !hasTool(tools, old.Spec().Name) {
			merged = append(merged, old)
		}
	}
	x.tools = append(merged, tools...)
	if x.child == nil {
		return nil
	}
	if err := x.child.sess.SetTools(ctx, guard(x.tools)); err != nil {
		x.replace()
		if ctx.Err() != nil {
			x.lost = "setting up the Starlark engine was cancelled, so " + stateLost
		}
		return fmt.Errorf("local: %w", err)
	}
	return nil
}

func hasTool(tools []tool.Tool, name string) bool {
	for _, t := range tools {
		if t.Spec().Name == name {
			return true
		}
	}
	return false
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func isIdentifier(s string) bool { return identRE.MatchString(s) }

// checkToolName refuses the tool names SetTools refuses in process.
func checkToolName(name string) error {
	if !isIdentifier(name) || strings.HasPrefix(name, "__") {
		return fmt.Errorf("local: tool name %q is not a valid Python identifier", name)
	}
	if name == "final_answer" || name == "print" {
		return fmt.Errorf("local: tool name %q is reserved", name)
	}
	return nil
}

// SetVariables binds values as global variables of the code, in the child
// that runs and in any child started later.
func (x *Executor) SetVariables(ctx context.Context, vars map[string]any) error {
	for name, v := range vars {
		if !isIdentifier(name) || strings.HasPrefix(name, "__") {
			return fmt.Errorf("local: variable name %q is not a valid Python identifier", name)
		}
		if _, err := pyvalue.Encode(v); err != nil {
			return fmt.Errorf("local: variable %s: %w", name, err)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := context.Cause(ctx); err != nil {
		return fmt.Errorf("local: set variables: %w", err)
	}
	// Kept so that a new child gets them too, as the wasm executor does.
	maps.Copy(x.vars, vars)
	if x.child == nil {
		return nil
	}
	if err := x.child.sess.SetVariables(ctx, vars); err != nil {
		if ctx.Err() != nil && x.child.sess.Err() != nil {
			// The answer would come to a request nobody waits for.
			x.replace()
			x.lost = "setting up the Starlark engine was cancelled, so " + stateLost
		}
		return fmt.Errorf("local: %w", err)
	}
	return nil
}

// Variables returns the code's global variables, as the engine in the
// child exports them (see executors.StateExporter).
func (x *Executor) Variables(ctx context.Context) (map[string]any, map[string]string, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.ensure(ctx); err != nil {
		return nil, nil, err
	}
	vars, skipped, err := x.child.sess.Variables(ctx)
	if err != nil {
		x.replace()
		return nil, nil, fmt.Errorf("local: %w", err)
	}
	if vars == nil {
		vars = map[string]any{}
	}
	if skipped == nil {
		skipped = map[string]string{}
	}
	return vars, skipped, nil
}

// Close kills the child, at once even while an execution runs, and
// releases the executor. Later executions fail.
func (x *Executor) Close() error {
	// Kill first: an execution in progress then ends at once instead of
	// holding the lock until its deadline.
	x.closing.Store(true)
	if c := x.running.Load(); c != nil {
		c.kill()
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed = true
	x.replace()
	return nil
}

// child is one running engine process.
type child struct {
	cmd     *exec.Cmd
	sess    *runner.Session
	cgroup  *cgroup       // nil unless the OS limit is a cgroup
	done    chan struct{} // closed when the process has been waited for
	waitErr error
	oom     bool // the cgroup's OOM killer ended it (set before done closes)
	stderr  *head
	printed *printed // what the execution in progress printed, for when the child dies
	once    sync.Once
	closers []io.Closer
	// handshake says whether the child took over (RunChildIfRequested).
	handshake *spawn.Handshake
}

// childProtocol is the version of what host and child say to each other
// beyond the runner protocol (the side channel's frames, the trailer):
// the child refuses a spec of another version and says so in its ready
// message (readyName), so that a host and a child of different builds
// (the program replaced on disk while a host runs) fail clearly at the
// start instead of misreading each other. Version 2: the trailer travels
// in the result (its "trailer" member), no longer on the side channel.
const childProtocol = 2

// readyName is the interpreter a child of this version names in its
// ready message.
var readyName = "starlark (engine child protocol " + strconv.Itoa(childProtocol) + ")"

// trailer is what the child reports after each execution besides the
// runner protocol's result, in the result's "trailer" member.
type trailer struct {
	// Output is how many bytes of printed output the child has sent on
	// the side channel since it started, this execution's included: the
	// host has them all before it returns the result.
	Output      int64  `json:"output"`
	Steps       uint64 `json:"steps"`
	NeedsPython bool   `json:"needs_python,omitempty"`
	// Hint is the error's hint for the operator (ExecError.Hint).
	Hint string `json:"hint,omitempty"`
	// Stuck reports that the engine abandoned a computation that still
	// runs, so the child can no longer be used.
	Stuck bool `json:"stuck,omitempty"`
	// Readings are what the execution read from a Tape (see
	// executors.Tape), when the host asked for them.
	Readings []int64 `json:"readings,omitempty"`
}

func startChild(spec childSpec, limit memoryLimit, live io.Writer, maxOutput int) (*child, error) {
	if _, ok := os.LookupEnv(childEnv); ok {
		// This process is a child whose main did not take over: without
		// this, it would start children of its own without end.
		return nil, errors.New("this process was started as an engine child, but its main did not call isolation.RunChildIfRequested")
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	hs, err := spawn.NewHandshake()
	if err != nil {
		return nil, err
	}
	defer hs.Started() // closes the child's end here, started or not
	cmd := exec.Command(exe, spawn.ChildArg)
	// Nothing of the host's environment (API keys) reaches the child.
	// One P: the child runs one execution at a time, and with a single
	// P a goroutine it wakes (the engine's, the one that reads requests)
	// runs on the thread that woke it instead of waking another thread,
	// which is most of what a step's hand-off costs (BenchmarkIsolatedCPU:
	// context switches per step).
	cmd.Env = []string{childEnv + "=" + string(data), "GOTRACEBACK=none", "GOMAXPROCS=1"}
	cmd.Dir = "/"
	c := &child{cmd: cmd, done: make(chan struct{}), stderr: &head{}, printed: &printed{max: 4 * maxOutput, more: make(chan struct{}, 1), ended: make(chan struct{})}, handshake: hs}
	cmd.Stderr = c.stderr
	// Pipes of our own rather than cmd's: the protocol must stay readable
	// after the child exits, until its last message is read.
	var ends []*os.File // the child's ends, closed here once it started
	pipe := func() (r, w *os.File) {
		if err != nil {
			return nil, nil
		}
		r, w, err = os.Pipe()
		return r, w
	}
	reqR, reqW := pipe()
	msgR, msgW := pipe()
	sideR, sideW := pipe()
	ends = append(ends, reqR, msgW, sideW)
	c.closers = []io.Closer{reqW, msgR, sideR}
	if err != nil {
		closeAll(ends)
		closeAll(c.closers)
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{reqR, msgW, sideW, hs.ChildEnd()} // fds 3, 4, 5, handshakeFD
	if limit.mechanism == "cgroup" {
		c.cgroup, err = newCgroup(limit.cgroupMax)
		if err != nil {
			c.cgroup = nil // the rlimit set by the child still holds
		}
	}
	setChildAttrs(cmd, c.cgroup)
	err = startCmd(cmd)
	closeAll(ends)
	if err != nil {
		closeAll(c.closers)
		c.cgroup.remove()
		return nil, err
	}
	go func() {
		c.waitErr = cmd.Wait()
		c.oom = c.cgroup.oomKilled()
		c.cgroup.remove()
		close(c.done)
	}()
	go c.readSide(newRawPipe(sideR), live)
	c.sess = runner.NewPolledSession(newRawPipe(msgR), newRawPipe(reqW))
	// The child's engine keeps the time limit: it must hear of waits.
	c.sess.ForwardPauses()
	return c, nil
}

func closeAll[T io.Closer](cs []T) {
	for _, c := range cs {
		if any(c) != nil && !isNilFile(c) {
			c.Close()
		}
	}
}

func isNilFile(c any) bool {
	f, ok := c.(*os.File)
	return ok && f == nil
}

// Side-channel frames: a kind byte, a 4-byte big-endian length, the
// payload. Printed output is the only kind (protocol 2).
const (
	frameOutput = 'o'
	maxFrame    = 1 << 20
)

// readSide copies printed output to live, until the child's end closes or
// sends what no child of this version sends.
func (c *child) readSide(r io.Reader, live io.Writer) {
	defer close(c.printed.ended)
	br := bufio.NewReaderSize(r, 64<<10)
	var hdr [5]byte
	buf := make([]byte, 0, 4096)
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return
		}
		n := binary.BigEndian.Uint32(hdr[1:])
		if n > maxFrame || hdr[0] != frameOutput {
			return // not from our child: stop listening
		}
		buf = buf[:0]
		if cap(buf) < int(n) {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(br, buf); err != nil {
			return
		}
		if live != nil {
			live.Write(buf)
		}
		c.printed.write(buf)
	}
}

// trailer decodes the trailer of the execution that just ended, from its
// result's trailer member, and waits up to d for the output the child says
// it sent before it (already in the side pipe, unless the child lies or
// broke).
func (c *child) trailer(raw json.RawMessage, d time.Duration) (trailer, error) {
	var t trailer
	if len(raw) == 0 {
		return t, fmt.Errorf("%w: the engine's process sent no trailer", runner.ErrProtocol)
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return t, fmt.Errorf("%w: the engine's process sent a bad trailer: %w", runner.ErrProtocol, err)
	}
	if !c.printed.await(t.Output, d) {
		return t, fmt.Errorf("%w: the engine's process did not send the %d bytes of output it reported", runner.ErrBroken, t.Output)
	}
	return t, nil
}

// kill stops the child and its process group at once; safe to call twice.
func (c *child) kill() {
	c.once.Do(func() {
		killGroup(c.cmd.Process)
		closeAll(c.closers)
	})
}

// exitReason waits up to d for the child to be reaped and says how it
// ended ("" if it is still running or ended normally).
func (c *child) exitReason(d time.Duration) string {
	select {
	case <-c.done:
	case <-time.After(d):
		return ""
	}
	msg := strings.TrimSpace(c.stderr.String())
	if c.handshake.Failed(time.Second) {
		return spawn.NotStarted("isolation.RunChildIfRequested()", msg)
	}
	var exit *exec.ExitError
	if !errors.As(c.waitErr, &exit) {
		return msg
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		state := "killed by signal " + ws.Signal().String()
		if msg != "" {
			return msg + "; " + state
		}
		return state
	}
	if exit.ExitCode() == 0 {
		return msg
	}
	if msg == "" {
		return exit.String()
	}
	return msg
}

// oomKilled reports, once the child was reaped, that the kernel killed it
// for exceeding its cgroup's memory.max.
func (c *child) oomKilled() bool {
	select {
	case <-c.done:
		return c.oom
	default:
		return false
	}
}

// printed keeps the first bytes printed by the execution in progress
// (the child sends what it prints as it prints it, up to its output cap),
// so that the result of a child killed at the deadline or cancelled still
// shows what the code printed, as in process. It also counts all the
// bytes the child sent, so that a result waits for the output sent
// before it.
type printed struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int64         // bytes received since the child started
	more  chan struct{} // signalled when total grows
	ended chan struct{} // closed when the side channel has ended
}

func (p *printed) write(b []byte) {
	p.mu.Lock()
	if room := p.max - len(p.buf); room > 0 {
		p.buf = append(p.buf, b[:min(room, len(b))]...)
	}
	p.total += int64(len(b))
	p.mu.Unlock()
	select {
	case p.more <- struct{}{}:
	default:
	}
}

// await waits up to d until total bytes have been received, and reports
// whether they were.
func (p *printed) await(total int64, d time.Duration) bool {
	var timeout <-chan time.Time
	for {
		p.mu.Lock()
		got := p.total
		p.mu.Unlock()
		if got >= total {
			return true
		}
		if timeout == nil {
			timer := time.NewTimer(d)
			defer timer.Stop()
			timeout = timer.C
		}
		select {
		case <-p.more:
		case <-p.ended:
			p.mu.Lock()
			got := p.total
			p.mu.Unlock()
			return got >= total
		case <-timeout:
			return false
		}
	}
}

// take returns what was printed and starts afresh.
func (p *printed) take() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := string(p.buf)
	p.buf = p.buf[:0]
	return s
}

// drained waits up to d for the side channel to end, so that printed
// holds everything the dead child wrote.
func (c *child) drained(d time.Duration) {
	select {
	case <-c.printed.ended:
	case <-time.After(d):
	}
}

// head keeps the first 4 KiB written to it: a Go runtime crash states its
// cause on the first line.
type head struct {
	mu  sync.Mutex
	buf []byte
}

func (h *head) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := 4096 - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (h *head) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.buf)
}

// Limits returns the limits the engine runs each step under.
func (x *Executor) Limits() executors.Limits { return x.spec.Limits }
