package wasm

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/star-agent/star-agent/executors/runner"
)

// engineKey identifies a compiled runtime: the page limit and the
// cancellation mode are properties of a wazero runtime, not of a module.
type engineKey struct {
	cacheDir    string
	pages       uint32
	closeOnDone bool
}

// engine is a wazero runtime with python.wasm compiled in it. Instances
// (sandboxes) are cheap to create from it; compiling is not.
type engine struct {
	rt      wazero.Runtime
	mod     wazero.CompiledModule
	compile time.Duration
}

// engines holds the compiled runtimes of this process, shared by every
// Executor with the same key and kept until the process ends, the way
// net/http keeps idle connections: a sandbox restart then costs an
// instantiation (about 60 ms), not a compilation.
var engines struct {
	sync.Mutex
	m map[engineKey]*engine
}

func sharedEngine(ctx context.Context, key engineKey) (*engine, error) {
	engines.Lock()
	defer engines.Unlock()
	if e, ok := engines.m[key]; ok {
		return e, nil
	}
	e, err := newEngine(ctx, key)
	if err != nil {
		return nil, err
	}
	if engines.m == nil {
		engines.m = map[engineKey]*engine{}
	}
	engines.m[key] = e
	return e, nil
}

func newEngine(ctx context.Context, key engineKey) (*engine, error) {
	cfg := wazero.NewRuntimeConfig().
		WithMemoryLimitPages(key.pages).
		WithCloseOnContextDone(key.closeOnDone)
	if key.cacheDir != "" {
		if err := os.MkdirAll(key.cacheDir, 0o700); err != nil {
			return nil, fmt.Errorf("wasm: compilation cache: %w", err)
		}
		cache, err := wazero.NewCompilationCacheWithDir(key.cacheDir)
		if err != nil {
			return nil, fmt.Errorf("wasm: compilation cache: %w", err)
		}
		cfg = cfg.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("wasm: WASI: %w", err)
	}
	start := time.Now()
	mod, err := rt.CompileModule(ctx, pythonWasm)
	if err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("wasm: compile python.wasm: %w", err)
	}
	if key.cacheDir != "" {
		markWarm(key.cacheDir) // the compiled code is in the cache now
	}
	return &engine{rt: rt, mod: mod, compile: time.Since(start)}, nil
}

// guestSpec is everything that shapes a sandbox's view of the world; it
// crosses to a child process as JSON.
type guestSpec struct {
	CacheDir string
	// RunnerCode is the compiled runner to start from (a file in
	// CacheDir), or ""; EmitCode asks the runner to send its compiled
	// code (see runnercode.go).
	RunnerCode  string
	EmitCode    bool
	Pages       uint32
	Mounts      []Mount
	PackageDirs []string
}

// packageGuestDir is where the i-th of Options.PackageDirs appears.
func packageGuestDir(i int) string { return "/packages/" + strconv.Itoa(i) }

// moduleConfig builds the guest's configuration: the runner as its
// program, the protocol on the channel file (reading requests from in,
// writing messages to out; see channelFS), the standard library and the
// user's mounts as its only files, an empty stdin, stdout and stderr both
// going to guestOut, no host environment, host clocks and randomness, and
// a sleep that ends when stop closes.
func (g guestSpec) moduleConfig(in io.Reader, out, guestOut io.Writer, stop <-chan struct{}) (wazero.ModuleConfig, error) {
	sub, err := fs.Sub(stdlibFS, "cpython")
	if err != nil {
		return nil, err
	}
	stdlib, err := stdlibDir()
	if err != nil {
		return nil, err
	}
	// The standard library is the directory /usr/local/lib/python3.11,
	// read from the zip by Go; python311.zip, first on the interpreter's
	// path, is hidden (see stdlibDir).
	var lib fs.FS = hideFile{FS: sub, name: stdlibZip}
	args := []string{"python", "-S", "-c", stdlibNames + runner.Script, "--channel=" + channelPath}
	if g.RunnerCode != "" {
		if code := readRunnerCode(g.RunnerCode); code != nil {
			lib = withFile{FS: lib, name: runnerCodeFile(), data: code}
			args[3] = runnerLoader() // its code starts with stdlibNames
		}
	} else if g.EmitCode {
		args = append(args, runner.EmitCodeArg)
	}
	fsc := wazero.NewFSConfig().WithFSMount(lib, "/usr/local/lib").WithFSMount(stdlib, "/usr/local/lib/python3.11")
	fsc = withSysFSMount(fsc, &channelFS{r: in, w: out}, channelDir)
	mount := func(host, guest string, writable bool) error {
		c, err := confine(host, writable)
		if err != nil {
			return err
		}
		fsc = withSysFSMount(fsc, c, guest)
		return nil
	}
	for _, m := range g.Mounts {
		if err := mount(m.HostPath, m.GuestPath, m.Writable); err != nil {
			return nil, err
		}
	}
	for i, d := range g.PackageDirs {
		if err := mount(d, packageGuestDir(i), false); err != nil {
			return nil, err
		}
	}
	sleep := func(ns int64) {
		t := time.NewTimer(time.Duration(ns))
		defer t.Stop()
		select {
		case <-t.C:
		case <-stop:
		}
	}
	cfg := wazero.NewModuleConfig().
		WithName("").
		WithArgs(args...).
		WithEnv("PYTHONHOME", "/usr/local").
		WithEnv("PYTHONDONTWRITEBYTECODE", "1").
		WithStdout(guestOut).
		WithStderr(guestOut).
		WithSysWalltime().
		WithSysNanotime().
		WithNanosleep(sys.Nanosleep(sleep)).
		WithRandSource(rand.Reader).
		WithFSConfig(fsc)
	return cfg, nil
}
