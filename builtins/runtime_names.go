package builtins

// Names of runtime helpers added to the contract after helpers.go. Like
// those, they begin with "__" so user code cannot name them. The helpers
// of exceptions, classes and scopes are declared next to their
// implementations: exceptions.go (try, raise, assert), classdef.go
// (class, super), scope.go (cells, globals, del), slices.go (slice
// assignment and deletion) and thread.go (the thread box).
const (
	// HelperIs: __sa_is(a, b) is Python's "a is b".
	HelperIs = "__sa_is"
	// HelperIter: __sa_iter(x) returns x if go.starlark.net can iterate
	// it, and for a str the list of its characters (code points), so that
	// "for c in s" works as in Python.
	HelperIter = "__sa_iter"
	// HelperMod: __sa_mod(a, b) is a % b with Python semantics: printf
	// formatting with Python's str/repr when a is a str (go.starlark.net's
	// %s and %r print Starlark reprs), the numeric remainder otherwise.
	// Proposed to the front end: lower every binary % to it.
	HelperMod = "__sa_mod"
)
