// Package decimal is Python's decimal (Decimal and its contexts) module for the Starlark engine: Module
// returns a new module value. Values and errors are CPython 3.11's.
package decimal
