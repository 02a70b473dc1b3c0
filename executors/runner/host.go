package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/tool"
)

// Sandbox is one running runner: a WebAssembly interpreter, a container, a
// micro-VM. Every full-Python executor starts them and a Host drives them.
type Sandbox interface {
	// Session is the protocol session on the sandbox's channel.
	Session() *Session
	// Kill stops the sandbox without waiting; it is safe to call twice and
	// from any goroutine.
	Kill()
	// Died waits up to d for the sandbox to end and says why it ended ("" if
	// it is still running or the reason is unknown).
	Died(d time.Duration) string
	// Ended reports whether the sandbox has ended and released what it
	// held (a process reaped, a container removed).
	Ended() bool
}

// HostOptions configure a Host.
type HostOptions struct {
	// Name prefixes the Host's Go errors ("docker: start sandbox: ...").
	Name string
	// Engine is the Result.Engine of its results ("python:docker").
	Engine string
	// Limits are the executor's limits, defaults applied.
	Limits executors.Limits
	// Config is sent to every runner the Host starts. Its zero import
	// policy means executors.NewImportPolicy(nil, nil), the default.
	Config Config
	// Start starts a sandbox whose runner is about to say it is ready.
	Start func(ctx context.Context) (Sandbox, error)
	// StartTimeout bounds Start plus the runner's handshake; 0 means 60 s.
	StartTimeout time.Duration
	// Crash names the Python exception that reports a sandbox that died
	// while running code, from why it died (Sandbox.Died); the default
	// says MemoryError when why mentions memory, else SystemError. It may
	// add to why.
	Crash func(why string) (typ, explained string)
	// ReapTimeout bounds how long Close waits for each killed sandbox to
	// end; 0 means 5 s.
	ReapTimeout time.Duration
	// Started, if set, is called with each sandbox once its runner is
	// ready and set up, before any code runs in it.
	Started func(Sandbox)
}

// Host is the lifecycle every full-Python executor shares: it starts a
// sandbox on first use, hands it the configuration, tools and variables,
// runs code under the time limit, and replaces a sandbox that timed out,
// crashed or broke the protocol, telling the model that its state was lost.
// It implements executors.Executor and executors.StateExporter. Methods are
// safe for concurrent use; executions are serialized.
type Host struct {
	opts HostOptions

	mu     sync.Mutex
	sb     Sandbox
	tools  []tool.Tool
	vars   map[string]any
	closed bool
	// lost says why the sandbox was replaced outside any result the model
	// saw (a cancelled execution); the next result carries it.
	lost string
	// retired are killed sandboxes that may not have ended yet.
	retired []Sandbox
	// starts counts the sandboxes started (for metrics and tests).
	starts int
}

var _ executors.Executor = (*Host)(nil)
var _ executors.StateExporter = (*Host)(nil)

// NewHost returns a Host; no sandbox starts until it is needed.
func NewHost(opts HostOptions) *Host {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 60 * time.Second
	}
	if opts.ReapTimeout == 0 {
		opts.ReapTimeout = 5 * time.Second
	}
	if opts.Crash == nil {
		opts.Crash = defaultCrash
	}
	if p := &opts.Config.Imports; p.Authorized == nil && p.Forbidden == nil {
		*p = executors.NewImportPolicy(nil, nil)
	}
	return &Host{opts: opts, vars: map[string]any{}}
}

func defaultCrash(why string) (string, string) {
	if strings.Contains(why, "MemoryError") || strings.Contains(why, "out of memory") || strings.Contains(why, "OOM") {
		return "MemoryError", why
	}
	return "SystemError", why
}

// Start starts the sandbox now rather than on the first Execute.
func (h *Host) Start(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ensure(ctx)
}

// Starts reports how many sandboxes the Host has started.
func (h *Host) Starts() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.starts
}

// Current is the running sandbox, or nil; for tests that break it. It must
// not be called while an execution holds the Host (it would wait for it).
func (h *Host) Current() Sandbox {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sb
}

// CurrentLocked is Current for a caller that knows an execution is running
// (the sandbox does not change while it runs).
func (h *Host) CurrentLocked() Sandbox { return h.sb }

func (h *Host) ensure(ctx context.Context) error {
	if h.closed {
		return errors.New(h.opts.Name + ": executor closed")
	}
	if h.sb != nil && h.sb.Session().StreamEnded() {
		// The sandbox died while idle (killed from outside, expired): this
		// step runs in a fresh one, and its result says what was lost.
		sb := h.sb
		h.sb = nil
		h.retire(sb)
		why := sb.Died(time.Second)
		if why == "" {
			why = "its runner stopped answering"
		}
		h.lost = "the Python sandbox ended between steps (" + why + "), so this step ran in a fresh one: variables, functions and imports defined before are gone"
	}
	if h.sb != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, h.opts.StartTimeout)
	defer cancel()
	sb, err := h.opts.Start(ctx)
	if err != nil {
		return fmt.Errorf("%s: start sandbox: %w", h.opts.Name, err)
	}
	h.starts++
	if err := h.setUp(ctx, sb); err != nil {
		h.retire(sb)
		if why := sb.Died(time.Second); why != "" {
			err = fmt.Errorf("%w (%s)", err, why)
		}
		return fmt.Errorf("%s: start sandbox: %w", h.opts.Name, err)
	}
	h.sb = sb
	if h.opts.Started != nil {
		h.opts.Started(sb)
	}
	return nil
}

// setUp waits for the runner and gives it the configuration, tools and
// variables.
func (h *Host) setUp(ctx context.Context, sb Sandbox) error {
	s := sb.Session()
	if _, err := s.Ready(ctx); err != nil {
		return err
	}
	if err := s.Configure(ctx, h.opts.Config); err != nil {
		return err
	}
	if len(h.tools) > 0 {
		if err := s.SetTools(ctx, h.tools); err != nil {
			return err
		}
	}
	if len(h.vars) > 0 {
		if err := s.SetVariables(ctx, h.vars); errors.Is(err, pyvalue.ErrTooBig) {
			// Variables given one at a time can pass the limit together;
			// the sandbox is still usable without them.
			h.lost = "the variables given to the Python sandbox could not all be restored after its restart (" + err.Error() + ")"
		} else if err != nil {
			return err
		}
	}
	return nil
}

// Execute runs code. A timeout, a crash of the sandbox or a protocol
// violation is a Result.Err that says the sandbox was restarted; the error
// is for a sandbox that cannot start or a ctx that ended.
func (h *Host) Execute(ctx context.Context, code string) (executors.Result, error) {
	start := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	res := executors.Result{Engine: h.opts.Engine}
	if err := h.ensure(ctx); err != nil {
		return res, err
	}
	// The limit counts running time: the clock stops while a bridged
	// tool call waits for a person (see executors.PauseClock).
	tctx, _, cancel := executors.StartClock(ctx, h.opts.Limits.Timeout)
	defer cancel()
	out, err := h.sb.Session().Exec(tctx, code)
	if err == nil {
		out.Engine = h.opts.Engine
		out.Duration = time.Since(start)
		if h.lost != "" {
			out.Notes = append(out.Notes, h.lost)
			h.lost = ""
		}
		return out, nil
	}
	// The runner is gone or busy with code nobody waits for: replace it.
	sb := h.sb
	h.sb = nil
	h.retire(sb)
	res.Duration = time.Since(start)
	if ctx.Err() != nil {
		h.lost = "the previous execution was cancelled, so the Python sandbox was restarted: variables, functions and imports defined before are gone"
		return res, fmt.Errorf("%s: execution stopped: %w", h.opts.Name, context.Cause(ctx))
	}
	h.lost = "" // this result tells the model itself
	if tctx.Err() != nil {
		res.Err = Restarted("TimeoutError", fmt.Sprintf("the code ran longer than the time limit of %s", h.opts.Limits.Timeout))
		return res, nil
	}
	if errors.Is(err, ErrProtocol) {
		// Only code that finds the runner's channel and writes to it can
		// do this; whatever it sent was not believed.
		why := strings.TrimPrefix(err.Error(), ErrBroken.Error()+": ")
		res.Err = Restarted("SystemError", "the sandbox sent the host a message that breaks the runner protocol ("+why+
			"); code must not write to the runner's channel, and this step's result is lost")
		return res, nil
	}
	why := err.Error()
	if errors.Is(err, io.ErrUnexpectedEOF) {
		if why = sb.Died(2 * time.Second); why == "" {
			why = err.Error()
		}
	}
	typ, why := h.opts.Crash(why)
	res.Err = Restarted(typ, "the Python interpreter crashed ("+why+")")
	return res, nil
}

// SetTools makes tools (and managed agents) callable from the code. A ctx
// that ends while the running sandbox is being told returns ctx's error;
// the sandbox then starts afresh, with these tools, at the next Execute.
func (h *Host) SetTools(ctx context.Context, tools []tool.Tool) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := context.Cause(ctx); err != nil {
		return fmt.Errorf("%s: set tools: %w", h.opts.Name, err)
	}
	h.tools = tools
	if h.sb == nil {
		return nil
	}
	return h.abandoned(ctx, h.sb.Session().SetTools(ctx, tools))
}

// SetVariables binds vars as global variables of the code. Values are
// JSON-shaped Go values or any pyvalue can encode (Tuple, Set, []byte,
// time.Time, ...). They survive a sandbox restart. A ctx that ends while
// the running sandbox is being told returns ctx's error, as for SetTools.
func (h *Host) SetVariables(ctx context.Context, vars map[string]any) error {
	for k, v := range vars {
		if _, err := pyvalue.Encode(v); err != nil {
			return fmt.Errorf("%s: variable %s: %w", h.opts.Name, k, err)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := context.Cause(ctx); err != nil {
		return fmt.Errorf("%s: set variables: %w", h.opts.Name, err)
	}
	maps.Copy(h.vars, vars)
	if h.sb == nil {
		return nil
	}
	return h.abandoned(ctx, h.sb.Session().SetVariables(ctx, vars))
}

// abandoned handles the error of a request that changes the running
// sandbox's set-up. When ctx ended while the runner was answering, the
// session is broken (the answer would come to a request nobody waits for):
// the sandbox is retired, and the next Execute starts a fresh one with the
// tools and variables given so far and says what was lost.
func (h *Host) abandoned(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil || h.sb.Session().Err() == nil {
		return err
	}
	sb := h.sb
	h.sb = nil
	h.retire(sb)
	h.lost = "setting up the Python sandbox was cancelled, so it was restarted: variables, functions and imports defined before are gone"
	return fmt.Errorf("%s: %w", h.opts.Name, err)
}

// Variables returns the code's global variables that JSON can carry, and
// for each one it cannot, the reason (for moving state between engines).
func (h *Host) Variables(ctx context.Context) (map[string]any, map[string]string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sb == nil {
		return map[string]any{}, nil, nil
	}
	return h.sb.Session().Variables(ctx)
}

// CarryBudget is how much variable data one router crossing may bring into
// the sandbox (see pyvalue.EncodeLimit): half its message limit.
func (h *Host) CarryBudget() int64 {
	return h.opts.Config.Limits().MaxMessage / 2
}

// Close stops the sandbox and waits, up to ReapTimeout each, until every
// sandbox the Host started has ended, so that none outlives Close.
func (h *Host) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	if h.sb != nil {
		h.retire(h.sb)
		h.sb = nil
	}
	var stuck []string
	for _, sb := range h.retired {
		sb.Died(h.opts.ReapTimeout)
		if !sb.Ended() {
			stuck = append(stuck, fmt.Sprint(sb))
		}
	}
	h.retired = nil
	if len(stuck) > 0 {
		return fmt.Errorf("%s: %d sandbox(es) did not end within %s of being killed: %s", h.opts.Name, len(stuck), h.opts.ReapTimeout, strings.Join(stuck, ", "))
	}
	return nil
}

// retire kills sb and keeps it until Close has seen it end.
func (h *Host) retire(sb Sandbox) {
	sb.Kill()
	live := h.retired[:0]
	for _, r := range h.retired {
		if !r.Ended() {
			live = append(live, r)
		}
	}
	h.retired = append(live, sb)
}

// Tail keeps the last 4 KiB written to it: a sandbox's stderr, whose end
// says why a runner died (Sandbox.Died) without letting a flood of output
// grow the host's memory. Its zero value is ready; it is safe for
// concurrent use.
type Tail struct {
	mu  sync.Mutex
	buf []byte
}

// tailSize is how much of the stderr a Tail keeps.
const tailSize = 4096

// Write keeps the end of p and never fails.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

// String returns what is kept.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
