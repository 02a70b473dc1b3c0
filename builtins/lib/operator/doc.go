// Package operator is Python's operator module for the Starlark engine: Module
// returns a new module value. Values and errors are CPython 3.11's.
package operator
