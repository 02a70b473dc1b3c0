package router

import (
	"fmt"
	"io"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/local"
	"github.com/star-agent/star-agent/executors/wasm"
)

// Config chooses engines by name, as the CLI's --engine and --executor
// flags do.
type Config struct {
	// Engine is "starlark", "python" or "auto"; "" means auto when Executor
	// is set, else starlark.
	Engine string
	// Executor names the full-Python executor: "" (none) or "wasm".
	Executor string
	// Limits and Imports configure every engine.
	Limits  executors.Limits
	Imports []string
	// Stdout receives the Starlark engine's output as it is printed.
	Stdout io.Writer
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
	case "", "wasm":
	default:
		return nil, fmt.Errorf("--executor %q is not known; the available full-Python executor is wasm", cfg.Executor)
	}
	newLocal := func() (*local.Executor, error) {
		return local.New(local.Options{Limits: cfg.Limits, AuthorizedImports: cfg.Imports, Stdout: cfg.Stdout})
	}
	newPython := func() (*wasm.Executor, error) {
		if cfg.Executor == "" {
			return nil, fmt.Errorf("--engine %s needs a full-Python executor: add --executor wasm", engine)
		}
		return wasm.New(wasm.Options{Limits: cfg.Limits, Imports: executors.NewImportPolicy(cfg.Imports, nil)})
	}
	switch engine {
	case "starlark":
		return newLocal()
	case "python":
		return newPython()
	case "auto":
		p, err := newPython()
		if err != nil {
			return nil, err
		}
		l, err := newLocal()
		if err != nil {
			p.Close()
			return nil, err
		}
		return New(l, p), nil
	}
	return nil, fmt.Errorf("--engine %q is not known: use starlark, python or auto", engine)
}
