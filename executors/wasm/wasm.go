// Package wasm is the full-Python executor that runs CPython 3.11, compiled
// to WebAssembly (wasm32-wasi), inside the Go process with wazero.
//
// The interpreter and its standard library are embedded in the binary (see
// cpython/build.sh and cpython/VERSIONS). The sandbox sees the standard
// library read-only at /usr/local/lib and nothing else of the host unless
// Options.Mounts says so: no environment variables, no sockets, no
// processes, no threads; its clocks and randomness are the host's. Code
// runs in the runner of package runner, so tools are callable from it.
//
// Cancellation: a WebAssembly function cannot be interrupted from outside
// unless the runtime checks for it, so there are two ways to stop code at
// its deadline. CancelClose runs the interpreter on a goroutine under a
// runtime compiled with close-on-context-done, which checks a flag in every
// loop and call; CancelProcess runs it in a re-executed copy of this
// program (see the init function) that is killed with SIGKILL. Measured on
// a shared 2-core Linux VM under load (go test -bench . in this package):
//
//	                      native   child process   close-on-done
//	fib(25)               12 ms    31 ms           199 ms
//	1M-iteration loop     67 ms    269 ms          1142 ms
//	start + first exec    -        440 ms          270 ms
//	trivial round trip    -        0.59 ms         0.65 ms
//	deadline overshoot    -        3.0 ms          3.8 ms
//
// Close-on-done makes pure-Python CPU work 4-6x slower than the child
// process, which costs ~170 ms more at start (a process and loading the
// compiled code from the disk cache) and isolates crashes and memory (RSS
// of an idle child 55 MiB, 148 MiB peak after building a 100 MB list).
// CancelProcess is therefore the default; CancelClose is for hosts that
// cannot start processes.
//
// After a timeout or a trap (e.g. deep recursion in C overflowing the wasm
// stack) the sandbox is killed and the next action gets a fresh one; the
// Result tells the model that its variables are gone. Tools and variables
// given with SetTools and SetVariables are restored.
//
// What holds against the code: the WASI capabilities are the boundary.
// The guest sees only the files above; it has no sockets, processes,
// threads or environment; its memory is capped by the runtime and its time
// by the deadline. The protocol with the host travels on a dedicated
// channel (see channelFS), never on the guest's stdout, and the host
// validates every message and bounds its size (package runner), so code
// that writes protocol messages can at worst lose its own step. The import
// allowlist is advisory inside the sandbox: the runner enforces it on
// import statements, __import__, importlib.import_module and module
// attributes (random._os), but code and runner share one interpreter, and
// a determined guest can reach any module object through introspection
// (gc, frames, closure cells, function globals). Such a module gives it
// nothing the capabilities do not: os.system and subprocess fail, and
// open() sees only the mounts.
//
// Pure-Python packages (wheels unpacked to a directory, no C extensions)
// become importable by listing the directory in Options.PackageDirs; it is
// mounted read-only and appended to sys.path, and the import policy still
// applies (authorize the package's top-level name).
package wasm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner"
	"github.com/star-agent/star-agent/starlarkagent/tool"
)

// Engine is the Result.Engine of this executor.
const Engine = "python:wasm"

// Cancel chooses how code is stopped at its deadline.
type Cancel int

const (
	// CancelProcess runs the interpreter in a child process that is killed
	// at the deadline. It is the default.
	CancelProcess Cancel = iota
	// CancelClose runs the interpreter in this process under a runtime
	// that checks for cancellation in every loop (slower CPU-bound code).
	CancelClose
)

// Mount makes a host directory visible to the code.
type Mount struct {
	HostPath  string
	GuestPath string // absolute path inside the sandbox, e.g. "/data"
	Writable  bool   // read-only unless set
}

// Options configure an Executor. The zero value is usable.
type Options struct {
	// Limits bound each execution; MaxMemory is the sandbox's whole memory
	// (interpreter included, at least 16 MiB) and MaxSteps and MaxDepth are
	// not enforced (CPython keeps its own recursion limit).
	Limits executors.Limits
	// Imports is the import policy; the zero value is
	// executors.NewImportPolicy(nil, nil). Authorize "*" for everything.
	Imports executors.ImportPolicy
	// Mounts are host directories the code may see.
	Mounts []Mount
	// PackageDirs are host directories of pure-Python packages, mounted
	// read-only at /packages/N and appended to sys.path.
	PackageDirs []string
	// CacheDir holds compiled machine code between runs; "" means
	// DefaultCacheDir(). NoCache disables the disk cache.
	CacheDir string
	NoCache  bool
	// Cancel chooses the cancellation strategy.
	Cancel Cancel
}

// Executor runs Python code in a WebAssembly CPython. It implements
// executors.Executor. Methods are safe for concurrent use; executions are
// serialized.
type Executor struct {
	opts   Options
	limits executors.Limits
	guest  guestSpec
	config runner.Config

	mu     sync.Mutex
	sb     sandbox
	tools  []tool.Tool
	vars   map[string]any
	closed bool
	// lost says why the sandbox was replaced outside any result the
	// model saw (a cancelled execution); the next result carries it.
	lost string
	// retired are killed sandboxes that may not have ended yet.
	retired []sandbox
}

var _ executors.Executor = (*Executor)(nil)

// minMemory is the smallest memory limit python.wasm runs with.
const minMemory = 16 << 20

// New returns an Executor. The sandbox starts on first use (or Start).
func New(opts Options) (*Executor, error) {
	if err := opts.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("wasm: %w", err)
	}
	limits := opts.Limits.WithDefaults()
	if limits.MaxMemory < minMemory {
		return nil, fmt.Errorf("wasm: max memory %d bytes is below the %d MiB the interpreter needs", limits.MaxMemory, minMemory>>20)
	}
	pages := uint64(limits.MaxMemory) / 65536
	if pages > 65536 {
		pages = 65536
	}
	cache := opts.CacheDir
	if cache == "" {
		cache = DefaultCacheDir()
	}
	if opts.NoCache {
		cache = ""
	}
	for _, m := range opts.Mounts {
		if !strings.HasPrefix(m.GuestPath, "/") || m.GuestPath == "/" || strings.HasPrefix(m.GuestPath, "/usr/local/lib") || strings.HasPrefix(m.GuestPath, channelDir) {
			return nil, fmt.Errorf("wasm: mount %s: guest path %q must be absolute and not /, /usr/local/lib or %s", m.HostPath, m.GuestPath, channelDir)
		}
	}
	imports := opts.Imports
	if imports.Authorized == nil && imports.Forbidden == nil {
		imports = executors.NewImportPolicy(nil, nil)
	}
	var sysPath []string
	for i := range opts.PackageDirs {
		sysPath = append(sysPath, packageGuestDir(i))
	}
	return &Executor{
		opts:   opts,
		limits: limits,
		guest:  guestSpec{CacheDir: cache, Pages: uint32(pages), Mounts: opts.Mounts, PackageDirs: opts.PackageDirs},
		config: runner.Config{MaxOutput: limits.MaxOutput, MaxMemory: limits.MaxMemory, MaxValue: limits.MaxValue, Imports: imports, SysPath: sysPath},
		vars:   map[string]any{},
	}, nil
}

// startTimeout bounds starting a sandbox, which includes compiling
// python.wasm when the cache is cold (about 2 s).
const startTimeout = 60 * time.Second

// Start starts the sandbox now rather than on the first Execute.
func (e *Executor) Start(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ensure(ctx)
}

func (e *Executor) ensure(ctx context.Context) error {
	if e.closed {
		return errors.New("wasm: executor closed")
	}
	if e.sb != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	var sb sandbox
	switch e.opts.Cancel {
	case CancelClose:
		eng, err := sharedEngine(ctx, engineKey{cacheDir: e.guest.CacheDir, pages: e.guest.Pages, closeOnDone: true})
		if err != nil {
			return err
		}
		s, err := startInProcess(eng, e.guest)
		if err != nil {
			return err
		}
		sb = s
	default:
		s, err := startChild(e.guest)
		if err != nil {
			return err
		}
		sb = s
	}
	if err := e.setUp(ctx, sb); err != nil {
		e.retire(sb)
		if why := sb.died(time.Second); why != "" {
			err = fmt.Errorf("%w (%s)", err, why)
		}
		return fmt.Errorf("wasm: start sandbox: %w", err)
	}
	e.sb = sb
	return nil
}

// setUp waits for the runner and gives it the configuration, tools and
// variables.
func (e *Executor) setUp(ctx context.Context, sb sandbox) error {
	s := sb.session()
	if _, err := s.Ready(ctx); err != nil {
		return err
	}
	if err := s.Configure(ctx, e.config); err != nil {
		return err
	}
	if len(e.tools) > 0 {
		if err := s.SetTools(ctx, e.tools); err != nil {
			return err
		}
	}
	if len(e.vars) > 0 {
		if err := s.SetVariables(ctx, e.vars); errors.Is(err, runner.ErrTooBig) {
			// Variables given one at a time can pass the limit together;
			// the sandbox is still usable without them.
			e.lost = "the variables given to the Python sandbox could not all be restored after its restart (" + err.Error() + ")"
		} else if err != nil {
			return err
		}
	}
	return nil
}

// Execute runs code. A timeout, a memory exhaustion the interpreter cannot
// survive, or a crash of the interpreter is a Result.Err that says the
// sandbox was restarted; the error is for a sandbox that cannot start or a
// ctx that ended.
func (e *Executor) Execute(ctx context.Context, code string) (executors.Result, error) {
	start := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	res := executors.Result{Engine: Engine}
	if err := e.ensure(ctx); err != nil {
		return res, err
	}
	tctx, cancel := context.WithTimeout(ctx, e.limits.Timeout)
	defer cancel()
	out, err := e.sb.session().Exec(tctx, code)
	if err == nil {
		out.Engine = Engine
		out.Duration = time.Since(start)
		if e.lost != "" {
			out.Notes = append(out.Notes, e.lost)
			e.lost = ""
		}
		return out, nil
	}
	// The runner is gone or busy with code nobody waits for: replace it.
	sb := e.sb
	e.sb = nil
	e.retire(sb)
	res.Duration = time.Since(start)
	if ctx.Err() != nil {
		e.lost = "the previous execution was cancelled, so the Python sandbox was restarted: variables, functions and imports defined before are gone"
		return res, fmt.Errorf("wasm: execution stopped: %w", context.Cause(ctx))
	}
	e.lost = "" // this result tells the model itself
	if tctx.Err() != nil {
		res.Err = runner.Restarted("TimeoutError", fmt.Sprintf("the code ran longer than the time limit of %s", e.limits.Timeout))
		return res, nil
	}
	if errors.Is(err, runner.ErrProtocol) {
		// Only code that finds the runner's channel and writes to it can
		// do this; whatever it sent was not believed.
		why := strings.TrimPrefix(err.Error(), runner.ErrBroken.Error()+": ")
		res.Err = runner.Restarted("SystemError", "the sandbox sent the host a message that breaks the runner protocol ("+why+
			"); code must not write to the runner's channel, and this step's result is lost")
		return res, nil
	}
	why := err.Error()
	if errors.Is(err, io.ErrUnexpectedEOF) {
		if why = sb.died(2 * time.Second); why == "" {
			why = err.Error()
		}
	}
	typ := "SystemError"
	switch {
	case strings.Contains(why, "MemoryError") || strings.Contains(why, "out of memory"):
		typ = "MemoryError"
	case strings.Contains(why, "out of bounds memory access") || strings.Contains(why, "stack"):
		// The C stack lives at the bottom of linear memory: overflowing
		// it is an out-of-bounds access.
		typ = "RecursionError"
		why += ", most likely the C stack overflowing in deep recursion"
	}
	res.Err = runner.Restarted(typ, "the Python interpreter crashed ("+why+")")
	return res, nil
}

// SetTools makes tools (and managed agents) callable from the code.
func (e *Executor) SetTools(tools []tool.Tool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tools = tools
	if e.sb == nil {
		return nil
	}
	return e.sb.session().SetTools(context.Background(), tools)
}

// SetVariables binds vars as global variables of the code. Values are
// JSON-shaped Go values or any the runner package can encode (Tuple, Set,
// []byte, time.Time, ...). They survive a sandbox restart.
func (e *Executor) SetVariables(vars map[string]any) error {
	for k, v := range vars {
		if _, err := runner.Encode(v); err != nil {
			return fmt.Errorf("wasm: variable %s: %w", k, err)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	maps.Copy(e.vars, vars)
	if e.sb == nil {
		return nil
	}
	return e.sb.session().SetVariables(context.Background(), vars)
}

// Variables returns the code's global variables that JSON can carry, and
// for each one it cannot, the reason (for moving state between engines).
func (e *Executor) Variables(ctx context.Context) (map[string]any, map[string]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sb == nil {
		return map[string]any{}, nil, nil
	}
	return e.sb.session().Variables(ctx)
}

// CarryBudget is how much variable data one router crossing may bring
// into this sandbox (see runner.EncodeLimit): half its message limit.
func (e *Executor) CarryBudget() int64 {
	return e.config.Limits().MaxMessage / 2
}

// Close stops the sandbox.
func (e *Executor) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	if e.sb != nil {
		e.retire(e.sb)
		e.sb = nil
	}
	// Wait until every interpreter this executor started has ended (a
	// child process reaped), so that no sandbox outlives Close.
	for _, sb := range e.retired {
		sb.died(reapTimeout)
	}
	e.retired = nil
	return nil
}

// reapTimeout bounds how long Close waits for a killed interpreter; a
// SIGKILLed child is reaped in milliseconds.
const reapTimeout = 5 * time.Second

// retire kills sb and keeps it until Close has seen it end.
func (e *Executor) retire(sb sandbox) {
	sb.kill()
	live := e.retired[:0]
	for _, r := range e.retired {
		if !r.ended() {
			live = append(live, r)
		}
	}
	e.retired = append(live, sb)
}

// String describes the executor for logs.
func (e *Executor) String() string {
	mode := "process"
	if e.opts.Cancel == CancelClose {
		mode = "close-on-done"
	}
	return "python:wasm(" + mode + ", " + strconv.FormatInt(e.limits.MaxMemory>>20, 10) + " MiB)"
}
