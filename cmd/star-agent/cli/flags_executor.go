package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/isolation"
	"github.com/star-agent/star-agent/executors/router"
)

// ExecutorFlags are the flags that choose and configure where code runs,
// shared by run, exec and serve. Each full-Python executor registers its
// own flags (flags_docker.go, flags_e2b.go, flags_modal.go).
type ExecutorFlags struct {
	Engine    string
	Executor  string
	Packages  []string
	Mounts    []string
	Isolation string
	// SandboxTimeout is the lifetime of a cloud sandbox (e2b, modal).
	SandboxTimeout time.Duration

	docker dockerFlags
	e2b    e2bFlags
	modal  modalFlags
}

// Register adds the flags to fl. The flag for imports is each command's
// own (its help differs).
func (f *ExecutorFlags) Register(fl *pflag.FlagSet) {
	fl.StringVar(&f.Engine, "engine", "", "where code runs: starlark, python, or auto (Starlark unless the code needs CPython); default auto with --executor, else starlark")
	fl.StringVar(&f.Executor, "executor", "", "full-Python executor for --engine python|auto: wasm (CPython in WebAssembly, in process), docker (a hardened local container), e2b or modal (cloud sandboxes)")
	fl.StringVar(&f.Isolation, "isolation", isolation.Process, "where the Starlark engine runs: process (a child process under OS memory and CPU limits, so that code which crashes the engine or outruns its limits is killed, never star-agent; tools and managed agents still run in star-agent) or none (in star-agent's own process)")
	fl.StringArrayVar(&f.Packages, "packages", nil, "directory of pure-Python packages (wheels unpacked) importable in the CPython sandbox once authorized with --imports; repeatable")
	fl.StringArrayVar(&f.Mounts, "mount", nil, "host directory the CPython sandbox may see, HOST:GUEST (read-only) or HOST:GUEST:rw, e.g. ./data:/data; repeatable")
	fl.DurationVar(&f.SandboxTimeout, "sandbox-timeout", 0, "lifetime of a cloud sandbox (--executor e2b or modal) between extensions; star-agent extends it while the agent runs and ends it on exit (0: the executor's default)")
	f.docker.register(fl)
	f.e2b.register(fl)
	f.modal.register(fl)
}

// IsDefault reports whether the flags leave the agent's default executor
// (the Starlark engine in this process) in place.
func (f *ExecutorFlags) IsDefault() bool {
	return f.Engine == "" && f.Executor == "" && len(f.Packages) == 0 && len(f.Mounts) == 0 && f.Isolation == isolation.None
}

// CheckImports validates the modules given to --imports for the engines
// the flags choose: each must be a dotted module name (or "*", or
// "pkg.*"), and a module in executors.NeverImportable, which the Starlark
// engine refuses whatever --imports says, is accepted only when every step
// runs in full Python (--engine python). The error names the flag and
// says why.
func (f *ExecutorFlags) CheckImports(imports []string) error {
	for _, m := range imports {
		name := strings.TrimSuffix(strings.TrimSpace(m), ".*")
		if name == "" || name == "*" {
			continue
		}
		if !executors.IsModuleName(name) {
			return fmt.Errorf("--imports %q: not a module name; give dotted Python names such as collections or xml.etree, pkg.* for a package, or * for every module", m)
		}
		top, _, _ := strings.Cut(name, ".")
		if executors.IsHostModule(top) && f.Engine != "python" {
			return fmt.Errorf("--imports %s: %s gives access to the host and is never importable in the Starlark engine, whatever --imports says; to let code import it, run every step in full Python: --engine python with --executor wasm, docker, e2b or modal", m, top)
		}
	}
	return nil
}

// RouterConfig is the router configuration the flags describe. Its errors
// are usage errors.
func (f *ExecutorFlags) RouterConfig(limits executors.Limits, imports []string, stdout io.Writer) (router.Config, error) {
	mounts, err := router.ParseMounts(f.Mounts)
	if err != nil {
		return router.Config{}, err
	}
	cfg := router.Config{Engine: f.Engine, Executor: f.Executor, Limits: limits, Imports: imports, Stdout: stdout, Packages: f.Packages, Mounts: mounts, Isolation: f.Isolation, SandboxTimeout: f.SandboxTimeout}
	for _, apply := range []func(*router.Config) error{f.docker.apply, f.e2b.apply, f.modal.apply} {
		if err := apply(&cfg); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// Open opens the executor the flags describe. Its errors are usage errors.
func (f *ExecutorFlags) Open(limits executors.Limits, imports []string, stdout io.Writer) (executors.Executor, error) {
	return f.OpenOwned(limits, imports, stdout, nil)
}

// OpenOwned is Open with the owner of the sandboxes (router.Config.Owner).
func (f *ExecutorFlags) OpenOwned(limits executors.Limits, imports []string, stdout io.Writer, owner map[string]string) (executors.Executor, error) {
	cfg, err := f.RouterConfig(limits, imports, stdout)
	if err != nil {
		return nil, err
	}
	cfg.Owner = owner
	return router.Open(cfg)
}
