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
// program (see RunChildIfRequested) that is killed with SIGKILL. Measured on
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
// Starting: python.wasm is compiled to machine code once per cache
// directory (about 2 s; the first start says so on Options.Progress) and
// loaded from there afterwards (Options.CacheDir, else DefaultCacheDir:
// the user's cache directory, or a private per-user directory under
// os.TempDir when there is none, as without HOME). The first sandbox
// started with a cache also leaves the runner's compiled code there, and
// later ones start from it instead of compiling the runner.
//
// asyncio: WASI has no socketpair, which asyncio's loops need to wake
// themselves, so the runner gives asyncio (when the code imports it) an
// event loop that only waits for timers: asyncio.run, tasks, gather,
// sleep, wait_for and timeouts, queues, locks, async generators and
// to_thread (run inline) work; connections, servers and subprocesses
// raise OSError saying the sandbox has none. Tracebacks name the
// standard library's paths inside the sandbox
// (/usr/local/lib/python3.11/...), not those of the machine that
// compiled it.
//
// Pure-Python packages (wheels unpacked to a directory, no C extensions)
// become importable by listing the directory in Options.PackageDirs; it is
// mounted read-only and appended to sys.path, and the import policy still
// applies (authorize the package's top-level name).
package wasm

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner"
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
	// (interpreter included, at least 16 MiB) and MaxOperations and MaxDepth are
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
	// Progress receives a line when a start has to compile CPython to
	// machine code (seconds, once per cache directory); nil means
	// os.Stderr. It is for the person running the program, never the
	// model.
	Progress io.Writer
	// Cancel chooses the cancellation strategy.
	Cancel Cancel
}

// Executor runs Python code in a WebAssembly CPython. It implements
// executors.Executor (through runner.Host, which it embeds). Methods are
// safe for concurrent use; executions are serialized.
type Executor struct {
	*runner.Host
	opts   Options
	limits executors.Limits
	guest  guestSpec
	// childExe is the program started as the sandbox child; "" is this
	// one. Tests set it to a program that does not take over.
	childExe string
	// codeDir is where the sandbox being started is to leave its compiled
	// runner ("": nowhere); start and started run under the Host's lock.
	codeDir string
}

// started keeps the compiled runner a sandbox sent, when start asked for it.
func (e *Executor) started(sb runner.Sandbox) {
	if e.codeDir != "" {
		keepRunnerCode(e.codeDir, sb)
		e.codeDir = ""
	}
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
	for _, m := range opts.Mounts {
		if !strings.HasPrefix(m.GuestPath, "/") || m.GuestPath == "/" || strings.HasPrefix(m.GuestPath, "/usr/local/lib") || strings.HasPrefix(m.GuestPath, channelDir) {
			return nil, fmt.Errorf("wasm: mount %s: guest path %q must be absolute and not /, /usr/local/lib or %s", m.HostPath, m.GuestPath, channelDir)
		}
	}
	var sysPath []string
	for i := range opts.PackageDirs {
		sysPath = append(sysPath, packageGuestDir(i))
	}
	e := &Executor{
		opts:   opts,
		limits: limits,
		guest:  guestSpec{Pages: uint32(pages), Mounts: opts.Mounts, PackageDirs: opts.PackageDirs},
	}
	e.Host = runner.NewHost(runner.HostOptions{
		Name:         "wasm",
		Engine:       Engine,
		Limits:       limits,
		Config:       runner.Config{MaxOutput: limits.MaxOutput, MaxMemory: limits.MaxMemory, MaxValue: limits.MaxValue, Imports: opts.Imports, SysPath: sysPath},
		Start:        e.start,
		StartTimeout: startTimeout,
		Crash:        crash,
		ReapTimeout:  reapTimeout,
		Started:      e.started,
	})
	return e, nil
}

// startTimeout bounds starting a sandbox, which includes compiling
// python.wasm when the cache is cold (about 2 s).
const startTimeout = 60 * time.Second

// reapTimeout bounds how long Close waits for a killed interpreter; a
// SIGKILLed child is reaped in milliseconds.
const reapTimeout = 5 * time.Second

// defaultCache is DefaultCacheDir, resolved once per process.
var defaultCache = sync.OnceValues(defaultCacheDir)

// start starts an interpreter with the cancellation strategy of e. When
// it is going to compile python.wasm (no cache yet, or none at all) it
// says so on Options.Progress first; newEngine, which compiles, marks the
// cache warm.
func (e *Executor) start(ctx context.Context) (runner.Sandbox, error) {
	g := e.guest
	var why error
	switch {
	case e.opts.NoCache:
	case e.opts.CacheDir != "":
		g.CacheDir = e.opts.CacheDir
	default:
		g.CacheDir, why = defaultCache()
	}
	e.codeDir = ""
	if g.CacheDir != "" {
		if p := filepath.Join(g.CacheDir, runnerCodeFile()); readRunnerCode(p) != nil {
			g.RunnerCode = p
		} else {
			os.Remove(p) // damaged, if it is there
			g.EmitCode = true
			e.codeDir = g.CacheDir
		}
	}
	cold := coldStart(g.CacheDir)
	if cold && !e.opts.NoCache {
		w := e.opts.Progress
		if w == nil {
			w = os.Stderr
		}
		sayCompiling(w, g.CacheDir, why)
	}
	if e.opts.Cancel == CancelClose {
		eng, err := sharedEngine(ctx, engineKey{cacheDir: g.CacheDir, pages: g.Pages, closeOnDone: true})
		if err != nil {
			return nil, err
		}
		return startInProcess(eng, g)
	}
	return startChild(e.childExe, g)
}

// crash names the exception for an interpreter that died running code.
func crash(why string) (string, string) {
	switch {
	case strings.Contains(why, "MemoryError") || strings.Contains(why, "out of memory"):
		return "MemoryError", why
	case strings.Contains(why, "out of bounds memory access") || strings.Contains(why, "stack"):
		// The C stack lives at the bottom of linear memory: overflowing
		// it is an out-of-bounds access.
		return "RecursionError", why + ", most likely the C stack overflowing in deep recursion"
	}
	return "SystemError", why
}

// String describes the executor for logs.
func (e *Executor) String() string {
	mode := "process"
	if e.opts.Cancel == CancelClose {
		mode = "close-on-done"
	}
	return "python:wasm(" + mode + ", " + strconv.FormatInt(e.limits.MaxMemory>>20, 10) + " MiB)"
}
