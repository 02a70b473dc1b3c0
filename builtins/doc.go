// Package builtins is what model-written code sees inside the Starlark
// engine: Python-compatible builtin functions and modules (math, json, re,
// datetime, ...), the runtime helpers that the Python front end lowers to,
// the mapping of errors onto Python exception types, and the allocation
// guards that keep one execution inside its memory budget.
//
// It is not the engine: executors/local owns threads, limits and the import
// policy, and calls into this package.
package builtins
