// Package contextlib is Python's contextlib module for the Starlark
// engine: contextmanager, suppress and nullcontext. Module returns a new
// module value.
package contextlib

import "github.com/star-agent/star-agent/builtins/core"

// Module returns a new contextlib module.
func Module() *core.PyModule { return core.NewModule("contextlib", core.ContextlibModule()) }
