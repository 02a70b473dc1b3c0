// Package pystruct is Python's struct module for the Starlark engine:
// Module returns a new module value. Formats, sizes (x86-64 Linux for
// native '@'), values and errors are CPython 3.11's; what pack and unpack
// build is charged to the execution's memory budget. pack_into needs a
// writable buffer, which the engine does not have yet.
package pystruct
