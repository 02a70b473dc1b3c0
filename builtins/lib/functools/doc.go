// Package functools is Python's functools module for the Starlark engine: Module
// returns a new module value. Values and errors are CPython 3.11's.
package functools
