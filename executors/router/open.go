package router

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/isolation"
	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/executors/wasm"
)

// Config chooses engines by name, as the CLI's --engine and --executor
// flags do.
type Config struct {
	// Engine is "starlark", "python" or "auto"; "" means auto when Executor
	// is set, else starlark.
	Engine string
	// Executor names the full-Python executor: "" (none), "wasm",
	// "docker", "e2b" or "modal".
	Executor string
	// SandboxTimeout is how long a cloud sandbox (e2b, modal) may live
	// without being extended; 0 means the executor's default.
	SandboxTimeout time.Duration
	// Docker, E2B and Modal configure the executors of those names.
	Docker DockerConfig
	E2B    E2BConfig
	Modal  ModalConfig
	// Limits and Imports configure every engine.
	Limits  executors.Limits
	Imports []string
	// Stdout receives the Starlark engine's output as it is printed.
	Stdout io.Writer
	// Packages are host directories of pure-Python packages (wheels
	// unpacked) importable by the full-Python executor once authorized.
	Packages []string
	// Mounts are host directories the full-Python executor's code may
	// see, read-only unless marked writable.
	Mounts []wasm.Mount
	// Isolation is where the Starlark engine runs: "" or isolation.None
	// in this process, isolation.Process in a child process under OS
	// limits, so that a crash, a stack overflow, memory the engine's
	// accounting missed or a builtin that ignores the deadline ends the
	// child, not this process (see package isolation). Tools still run in
	// this process.
	Isolation string
	// Owner names who owns the sandboxes (the replica and the run of
	// star-agent serve): labels on Docker containers (docker.Options.Owner),
	// metadata on E2B sandboxes, tags on Modal sandboxes.
	Owner map[string]string
}

// ParseMounts reads --mount values (see ParseMount).
func ParseMounts(values []string) ([]wasm.Mount, error) {
	var out []wasm.Mount
	for _, v := range values {
		m, err := ParseMount(v)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// ParseMount reads a --mount value, HOST:GUEST or HOST:GUEST:rw (GUEST
// absolute, read-only unless :rw).
func ParseMount(s string) (wasm.Mount, error) {
	parts := strings.Split(s, ":")
	m := wasm.Mount{}
	switch {
	case len(parts) == 3 && parts[2] == "rw":
		m.Writable = true
	case len(parts) == 3 && parts[2] == "ro":
	case len(parts) != 2:
		return m, fmt.Errorf("--mount %q: want HOST:GUEST or HOST:GUEST:rw, e.g. ./data:/data", s)
	}
	m.HostPath, m.GuestPath = parts[0], parts[1]
	if m.HostPath == "" || !strings.HasPrefix(m.GuestPath, "/") {
		return m, fmt.Errorf("--mount %q: the host directory must be named and the sandbox path absolute, e.g. ./data:/data", s)
	}
	return m, nil
}

// Open returns the executor cfg describes. Its errors describe a bad
// configuration and say how to fix it.
func Open(cfg Config) (executors.Executor, error) {
	engine := cfg.Engine
	if engine == "" {
		engine = "starlark"
		if cfg.Executor != "" {
			engine = "auto"
		}
	}
	switch cfg.Executor {
	case "", "wasm", "docker", "e2b", "modal":
	default:
		return nil, fmt.Errorf("--executor %q is not known; the full-Python executors are wasm, docker, e2b and modal", cfg.Executor)
	}
	if cfg.Executor == "" && (len(cfg.Packages) > 0 || len(cfg.Mounts) > 0) {
		return nil, fmt.Errorf("--packages and --mount are for the full-Python executor: add --executor wasm or --executor docker")
	}
	// Host paths are made absolute: the sandbox may run in a child
	// process with another working directory.
	var packages []string
	for _, d := range cfg.Packages {
		abs, err := filepath.Abs(d)
		if st, serr := os.Stat(abs); err != nil || serr != nil || !st.IsDir() {
			return nil, fmt.Errorf("--packages %s: not a directory", d)
		}
		packages = append(packages, abs)
	}
	var mounts []wasm.Mount
	for _, m := range cfg.Mounts {
		abs, err := filepath.Abs(m.HostPath)
		if st, serr := os.Stat(abs); err != nil || serr != nil || !st.IsDir() {
			return nil, fmt.Errorf("--mount %s: %s is not a directory", m.GuestPath, m.HostPath)
		}
		m.HostPath = abs
		mounts = append(mounts, m)
	}
	// rerun: a router above the engine runs in full Python the steps the
	// engine stops at (starlarkexec.Options.Rerun).
	newLocal := func(rerun bool) (Local, error) {
		switch cfg.Isolation {
		case "", isolation.None:
			l, err := starlarkexec.New(starlarkexec.Options{Limits: cfg.Limits, AuthorizedImports: cfg.Imports, Stdout: cfg.Stdout, Rerun: rerun})
			if err != nil {
				return nil, err
			}
			return l, nil
		case isolation.Process:
			l, err := isolation.New(isolation.Options{Limits: cfg.Limits, AuthorizedImports: cfg.Imports, Stdout: cfg.Stdout, Rerun: rerun})
			if err != nil {
				return nil, err
			}
			return l, nil
		}
		return nil, fmt.Errorf("isolation %q is not known: use %s (the engine in a child process) or %s (in this process)", cfg.Isolation, isolation.Process, isolation.None)
	}
	newPython := func() (Python, error) {
		switch cfg.Executor {
		case "":
			return nil, fmt.Errorf("--engine %s needs a full-Python executor: add --executor wasm (or docker, e2b, modal)", engine)
		case "docker":
			return openDocker(cfg, packages, mounts)
		case "e2b":
			return openE2B(cfg)
		case "modal":
			return openModal(cfg)
		}
		return wasm.New(wasm.Options{Limits: cfg.Limits, Imports: executors.NewImportPolicy(cfg.Imports, nil), PackageDirs: packages, Mounts: mounts})
	}
	switch engine {
	case "starlark":
		return newLocal(false)
	case "python":
		return newPython()
	case "auto":
		p, err := newPython()
		if err != nil {
			return nil, err
		}
		l, err := newLocal(true)
		if err != nil {
			p.Close()
			return nil, err
		}
		return New(l, p), nil
	}
	return nil, fmt.Errorf("--engine %q is not known: use starlark, python or auto", engine)
}
