// Package random is Python's random (CPython's Mersenne Twister, seeded alike) module for the Starlark engine: Module
// returns a new module value. Values and errors are CPython 3.11's.
package random
