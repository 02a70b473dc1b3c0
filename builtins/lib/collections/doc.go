// Package collections is Python's collections (Counter, defaultdict, OrderedDict, deque, namedtuple) module for the Starlark engine: Module
// returns a new module value. Values and errors are CPython 3.11's.
package collections
