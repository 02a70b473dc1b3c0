// Package datetime is Python's datetime module for the Starlark engine: Module
// returns a new module value. Values and errors are CPython 3.11's.
package datetime
