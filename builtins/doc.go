// Package builtins is what model-written code sees inside the Starlark
// engine, assembled from three explicit tables: Universe (the builtin
// names: types, functions, exception classes), Runtime (the helpers the
// Python front end lowers to, named in package contract) and the modules
// code can import (Module, ModuleNames).
//
// The implementations live below, split as go.starlark.net splits its
// lib/: core holds the object model and what modules share, lib/<name>
// one package per Python module, pyexc the table of exception types, ucd
// Unicode's names and tables. Dependencies run one way, toward core.
//
// It is not the engine: executors/starlarkexec owns threads, limits and the import
// policy, and calls into this package.
package builtins
