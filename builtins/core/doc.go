// Package core is the object model of the Starlark engine's Python and
// what its modules share: Python's types, classes and instances,
// exceptions (raised with Errorf and a type from package pyexc), the
// numeric tower (modules' numeric types join it through the interfaces in
// numbers.go), repr and str, iteration, generators, operators, copy,
// namedtuple, argument conversion, and the allocation guards (Alloc,
// Budget) and deadline checks (Interrupted) that keep an execution inside
// its limits.
//
// It imports no module package; modules (builtins/lib/...) import it.
package core
