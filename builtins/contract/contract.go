// Package contract is what the Python front end (pyfront)
// and the runtime (builtins) agree on: the names of the helpers lowered
// code calls, the attribute names routed through HelperAttr, the limit on
// starred unpacking, and the keys of the values an executor stores on a
// thread. It imports nothing, so the front end does not depend on the
// runtime; builtins.TestContract checks that the runtime provides every
// helper named here.
package contract

// HelperUnpack: a, b = __sa_unpack[2] % x is a, b = x. go.starlark.net
// unpacks by iterating x, and its iterators have no way to report an
// error: a generator that raises while being unpacked would look
// exhausted, giving "not enough values" instead of its exception, or no
// error at all when it raises after its last value. The guard drains a
// generator or an iterable instance itself, at most one value more than
// the targets as Python does, so that its exception surfaces; a list,
// tuple or any other value passes through untouched (an operator, not a
// call: see add.go for why). __sa_unpack[0] drains without bound, for
// starred targets.
const HelperUnpack = "__sa_unpack"

// MaxUnpack is the largest count with a guard of its own; above it the
// front end uses __sa_unpack[0].
const MaxUnpack = 16

// StdoutKey is the thread-local key under which the engine stores the
// io.Writer that print writes to. print writes exactly what Python would
// (the arguments joined by sep, then end). Without it, print falls back to
// thread.Print, which appends its own newline: output then matches Python
// only for the default end="\n".
const StdoutKey = "star-agent.stdout"

// ElidingWriter is a StdoutKey writer that keeps only the first and the
// last characters printed. print builds each line within Keep bytes of
// its start and of its end, and hands it over with WriteElided, which
// counts the dropped middle as printed: a print of a huge value then
// costs the output's size in memory, not the value's repr.
type ElidingWriter interface {
	// Keep is how many bytes of a line's start and of its end the writer
	// may keep (a multiple of its character limit: up to 4 bytes each).
	Keep() int
	// WriteElided writes head, counts dropped characters, writes tail.
	WriteElided(head string, dropped int, tail string)
}

const (
	// HelperBox is the global holding the executor's ThreadBox.
	HelperBox = "__sa_box"
	// HelperEnter: __sa_enter(__sa_box) records the calling thread in the
	// box. The front end emits it first in every chunk.
	HelperEnter = "__sa_enter"
)

const (
	// HelperIndex: __sa_index(x, k) is x[k].
	HelperIndex = "__sa_index"
	// HelperSlice: __sa_slice(x, lo, hi, step) is x[lo:hi:step].
	HelperSlice = "__sa_slice"
)

const (
	// HelperSetSlice: __sa_setslice(x, lo, hi, step, v) is x[lo:hi:step] = v.
	HelperSetSlice = "__sa_setslice"
	// HelperDelSlice: __sa_delslice(x, lo, hi, step) is del x[lo:hi:step].
	HelperDelSlice = "__sa_delslice"
)

const (
	// HelperCell: __sa_cell("x") is an unbound cell for local variable x,
	// __sa_cell("x", v) one holding v. Lowered code reads and writes its
	// attribute v.
	HelperCell = "__sa_cell"
	// HelperUnbind: __sa_unbind(cell) is del x for a variable in a cell.
	HelperUnbind = "__sa_unbind"
	// HelperDelGlobal: __sa_delglobal("x") is del x for a global of the
	// calling function's module.
	HelperDelGlobal = "__sa_delglobal"
	// HelperGlobals: __sa_globals() returns the calling function's module
	// globals as an object whose attributes are the global variables, so
	// that a nested function can assign them (g.x = 1).
	HelperGlobals = "__sa_globals"
)

// ExecutorGlobalsKey is the thread-local key under which an engine that
// runs each step of a session as its own go.starlark.net program, and
// keeps the Python module namespace between steps, stores it: a
// *core.Namespace whose Globals is that namespace's dictionary. The
// engine sets it on every thread of an execution (generators' included)
// and starts each step's top-level code with a call of HelperGlobals,
// which makes that step's module the running one. A function of any step
// that assigns or deletes a global (global x) then does so in the
// namespace and in every step's module, as in Python's single module;
// see core.Namespace. Without it each program is a module of its own.
const ExecutorGlobalsKey = "star-agent.executor-globals"

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

// DeadlineKey is the thread-local key under which the engine may store
// the execution's deadline: a func() time.Time that returns it as it
// stands when called (it moves later while the execution waits for a
// person's decision, which does not count against its time limit).
// Regular-expression matching cannot be interrupted from outside, so each
// match gets the time left until the deadline as its timeout; without it
// a match may run for defaultMatchTimeout.
const DeadlineKey = "star-agent.deadline"

// Names of the runtime helpers that the Python front end
// (pyfront) emits in lowered code. They begin with "__", a
// prefix the front end refuses in user-written identifiers and attributes,
// so user code can reach them only through the syntax that lowers to them.
//
// Runtime() (in runtime.go) must provide every one of them.
const (
	// HelperImport: __sa_import("a.b") returns module a.b, and
	// __sa_import("a.b", True) returns the top-level package a (for
	// "import a.b"). The engine provides it and checks the import policy.
	HelperImport = "__sa_import"
	// HelperMul: __sa_mul(a, b) is a * b with the repeat bounded by the
	// memory budget and big-integer products bounded in size.
	HelperMul = "__sa_mul"
	// HelperPow: __sa_pow(a, b) is a ** b with Python semantics
	// (int ** negative int is a float, results bounded in size).
	HelperPow = "__sa_pow"
	// HelperFormat: __sa_fmt(value, conversion, spec) renders one f-string
	// replacement field; conversion is "", "r", "s" or "a"; spec is the
	// format spec after ':' (already rendered if it had nested fields).
	HelperFormat = "__sa_fmt"
	// HelperAttr: __sa_attr(x, "name") reads attribute name of x, giving
	// builtin values (str, list, dict, set, ...) their Python methods that
	// go.starlark.net lacks, and bounded versions of those that can
	// allocate without limit (str.join, str.replace, ...). The front end
	// emits it for every attribute whose name is in CompatAttrs.
	HelperAttr = "__sa_attr"
)

const (
	// HelperGenerator: __sa_generator("f", body, a, b, ...) is the
	// generator object of a call of generator function f: body(a, b, ...)
	// runs when the generator is first resumed.
	HelperGenerator = "__sa_generator"
	// HelperYield: __sa_yield(x) in a generator body yields x and returns
	// the value sent back (None for next()).
	HelperYield = "__sa_yield"
	// HelperYieldFrom: __sa_yield_from(x) is yield from x: it returns the
	// value the sub-generator returned.
	HelperYieldFrom = "__sa_yield_from"
	// HelperGenexpr: __sa_genexpr(it, f1, ..., fn) is the generator
	// expression whose first iterable is it (evaluated where the
	// expression is) and whose clauses are f1..fn: fk(v1, ..., vk), given
	// the current values of the first k for clauses, returns a sequence
	// of no item (the if clauses of clause k filtered it out) or one: the
	// iterable of clause k+1, or for the last the element produced.
	HelperGenexpr = "__sa_genexpr"
	// HelperLoop: __sa_loop(x) is the operand of a lowered for loop or
	// comprehension clause. An iterator (a generator, zip, ...) is
	// wrapped so that an exception it raises ends the loop and is raised
	// by HelperLoopCheck right after it; __sa_loop(x, True) also iterates
	// lists and dicts without go.starlark.net's iteration lock, for loops
	// a generator can be suspended in.
	HelperLoop = "__sa_loop"
	// HelperLoopCheck: __sa_loop_check() raises the exception that ended
	// the loop just finished, if any; __sa_loop_check(v) returns v
	// (a comprehension's value) after the same check.
	HelperLoopCheck = "__sa_loop_check"
	// HelperStar: __sa_star(x) is the items of *x in a call, a display or
	// a starred assignment: x itself when go.starlark.net iterates it as
	// Python does, else its items collected, so that an exception an
	// iterator raises propagates.
	HelperStar = "__sa_star"
)

// Names of the exception helpers (see the file comment).
const (
	// HelperTry: __sa_try(body) calls body() and returns (None, result),
	// or (exception, None) if it raised a catchable exception.
	HelperTry = "__sa_try"
	// HelperExcMatch: __sa_exc_match(exc, T) reports whether exc is an
	// instance of T (a class or a tuple of classes); T None is a bare
	// except.
	HelperExcMatch = "__sa_exc_match"
	// HelperRaise: __sa_raise(x) raises x (a class or an instance);
	// __sa_raise(x, cause) is raise x from cause.
	HelperRaise = "__sa_raise"
	// HelperReraise: __sa_reraise(exc) raises a caught exception again,
	// with its original error (position, traceback) when it has one.
	HelperReraise = "__sa_reraise"
	// HelperAssert: __sa_assert() raises AssertionError;
	// __sa_assert(msg) raises AssertionError(msg).
	HelperAssert = "__sa_assert"
)

// Ordered comparison with a number literal. go.starlark.net orders values
// of different types only for int against float, and orders a float NaN
// above every number, so Decimal("2.5") > 0, True < 2 or an IntEnum
// member against an int would raise TypeError, and nan > 0 would be True.
//
// The front end lowers x < 2, where one operand is a number literal, to
// x in K, with K a comparison constant bound once in the module's prologue
// by K = __sa_cmpk("<", 2, False). Membership in K is the comparison, as
// CPython evaluates it (pyCompare): one operator, as cheap as Starlark's
// own <, instead of a helper call (see add.go).
const HelperCmpConst = "__sa_cmpk"

const (
	// HelperClass: __sa_class(name, namespace, cell, fields, box, *bases)
	// creates a class from the dict its lowered body returned. cell (a
	// Cell) receives the class, for super() in its methods; fields lists
	// the annotated names of the body in order, for @dataclass; box is
	// the executor's ThreadBox (HelperBox).
	HelperClass = "__sa_class"
	// HelperSuper: __sa_super(cell, self) is super() in a method of the
	// class cell holds.
	HelperSuper = "__sa_super"
)

// HelperKwargs: __sa_kwargs("f", part, ...) is the dict that a call of
// f receives through ** when keywords follow a **: each part is a **
// operand (a mapping) or a (name, value) pair (a keyword argument), merged
// in the order of the call. A name given twice is a TypeError, as in
// Python.
const HelperKwargs = "__sa_kwargs"

// HelperSetVar: __sa_setvar(obj, "name", v) sets attribute name of obj (a
// cell or the globals view of HelperGlobals) to v and returns v.
const HelperSetVar = "__sa_setvar"

const (
	// HelperBinop: __sa_binop(op, x, y) is x op y for op one of "-", "/",
	// "//", "%", "&", "|", "^", "<<", ">>" with Python's bool-as-int rules.
	// The front end uses it when an operand may be a bool.
	HelperBinop = "__sa_binop"
	// HelperEq: __sa_eq(x, y) is Python's x == y.
	HelperEq = "__sa_eq"
	// HelperNe: __sa_ne(x, y) is Python's x != y.
	HelperNe = "__sa_ne"
)

// Guarded concatenation. Concatenation is the one core operator besides
// repetition whose result can double in a single interpreter step
// (s = s + s), faster than any periodic check can see, so it asks the
// budget first. A literal operand adds a bounded amount per step, which the
// engine's periodic measurement catches, and the front end leaves a + b
// alone when it proves both operands numbers.
//
// Any other a + b is lowered to __sa_plus[a][b], and x += y to
// x = __sa_iplus[x][y], rather than to a helper call: go.starlark.net
// spends some 70 ns on every builtin call (argument copy, frame, defer),
// which made recursive arithmetic such as fib(n-1) + fib(n-2) a quarter
// slower than plain Starlark. Indexing a value of ours is the cheapest
// dispatch the interpreter has (cheaper than an operator). The first index
// wraps a in a value that only the second sees: an int is wrapped without
// allocating, and adding to it cannot concatenate; anything else is added
// by the guard, which charges the budget of the execution in progress
// through the executor's ThreadBox.
const (
	HelperPlus  = "__sa_plus"  // __sa_plus[a][b] is a + b
	HelperIPlus = "__sa_iplus" // x = __sa_iplus[x][y] is x += y: lists extend in place
)

// Guarded ordered comparisons and floor division and remainder, in the
// form of the plus guard (an operator, not a call: see HelperPlus).
// go.starlark.net orders a float NaN above every number and equal to
// itself (nan >= nan is True there, False in Python) and does not order
// a bool against an int; its float // and % are not CPython's (1 // 0.1
// is 10.0 there, 9.0 in Python; -6.0 % 3.0 is -0.0 there, 0.0 in
// Python). The front end lowers x < y to __sa_lt[x][y] unless both
// operands are known ints or both strs, and x // y and a numeric x % y
// to __sa_floordiv[x][y] and __sa_rem[x][y] unless both are known ints.
const (
	HelperLt       = "__sa_lt"       // __sa_lt[x][y] is x < y
	HelperLe       = "__sa_le"       // __sa_le[x][y] is x <= y
	HelperGt       = "__sa_gt"       // __sa_gt[x][y] is x > y
	HelperGe       = "__sa_ge"       // __sa_ge[x][y] is x >= y
	HelperFloorDiv = "__sa_floordiv" // __sa_floordiv[x][y] is x // y
	HelperRem      = "__sa_rem"      // __sa_rem[x][y] is x % y for numbers
)

// HelperNumMul: __sa_nmul[x][y] is x * y for operands the front end has
// proven numbers (never sequences, never bools): only the size of an
// int product is bounded. The guard form (see HelperPlus) saves the
// helper call of HelperMul in arithmetic loops.
const HelperNumMul = "__sa_nmul"

// compatAttrs are the attribute names the front end routes through
// HelperAttr: every Python method of str, bytes, list, tuple, dict, set,
// int and float that go.starlark.net lacks, implements differently (byte
// instead of code-point indices, lists instead of views, other messages)
// or could use to allocate without bound. Two names whose native
// behaviour is identical and which sit in hot loops are left out:
// list.append and dict.get. core.TestCompatAttrs checks this list
// against the runtime's method tables.
var compatAttrs = map[string]bool{
	"add": true, "as_integer_ratio": true, "bit_count": true, "bit_length": true, "capitalize": true, "casefold": true, "center": true, "clear": true,
	"conjugate": true, "copy": true, "count": true, "decode": true, "denominator": true, "difference": true, "difference_update": true, "discard": true,
	"encode": true, "endswith": true, "expandtabs": true, "extend": true, "find": true, "fromkeys": true, "format": true, "format_map": true, "hex": true,
	"imag": true, "index": true, "insert": true, "intersection": true, "intersection_update": true, "is_integer": true, "isalnum": true, "isalpha": true,
	"isascii": true, "isdecimal": true, "isdigit": true, "isdisjoint": true, "isidentifier": true, "islower": true, "isnumeric": true, "isprintable": true,
	"isspace": true, "issubset": true, "issuperset": true, "istitle": true, "isupper": true, "items": true, "join": true, "keys": true,
	"ljust": true, "lower": true, "lstrip": true, "maketrans": true, "numerator": true, "partition": true, "pop": true, "popitem": true,
	"real": true, "remove": true, "removeprefix": true, "removesuffix": true, "replace": true, "reverse": true, "rfind": true, "rindex": true,
	"rjust": true, "rpartition": true, "rsplit": true, "rstrip": true, "setdefault": true, "sort": true, "split": true, "splitlines": true,
	"start": true, "startswith": true, "step": true, "stop": true, "strip": true, "swapcase": true, "symmetric_difference": true, "symmetric_difference_update": true,
	"title": true, "to_bytes": true, "translate": true, "union": true, "update": true, "upper": true, "values": true, "zfill": true,
}

// readableDunders are the special attributes code may read (x.name or
// getattr) though not assign: they describe a function, a class or a
// value and reach nothing (core's specialAttr gives them). Every other
// double-underscore name outside the special methods stays refused.
var readableDunders = map[string]bool{"__name__": true, "__doc__": true, "__module__": true, "__class__": true, "__wrapped__": true}

// ReadableDunder reports whether code may read attribute name, a
// double-underscore name, of any value.
func ReadableDunder(name string) bool { return readableDunders[name] }

// CompatAttr reports whether the front end lowers attribute name to
// HelperAttr.
func CompatAttr(name string) bool { return compatAttrs[name] }

// CompatAttrs lists the names CompatAttr accepts, in no particular order.
func CompatAttrs() []string {
	names := make([]string, 0, len(compatAttrs))
	for n := range compatAttrs {
		names = append(names, n)
	}
	return names
}

// Helpers of the data model: the with statement, in-place operators,
// matrix multiplication and item deletion, which user classes may define
// through their special methods.
const (
	// HelperWithEnter: __sa_with_enter(m) calls m's __enter__ and
	// returns what it returns.
	HelperWithEnter = "__sa_with_enter"
	// HelperWithExit: __sa_with_exit(m, exc) calls m's __exit__ with
	// the type, value and traceback of exc (None, None, None for None)
	// and returns whether it suppresses exc.
	HelperWithExit = "__sa_with_exit"
	// HelperInplace: x = (__sa_iop % x) op y is x op= y. The guard
	// returns x itself unless it is an instance whose class defines the
	// in-place method of op (__iadd__, __isub__, ...), which then runs
	// when the operator applies. An operator, not a call: see add.go for
	// why.
	HelperInplace = "__sa_iop"
	// HelperMatmul: __sa_matmul(a, b) is a @ b: __matmul__, else
	// __rmatmul__ of b.
	HelperMatmul = "__sa_matmul"
	// HelperDelItem: __sa_delitem(x, k) is del x[k].
	HelperDelItem = "__sa_delitem"
	// HelperEllipsis: __sa_ellipsis is the value of "...".
	HelperEllipsis = "__sa_ellipsis"
	// HelperUnstar: __sa_unstar(x, n, m) is the tuple a, b..., rest, c...
	// that unpacks x into n targets, a starred one and m more: the items
	// of x, with those between the first n and the last m in a list.
	HelperUnstar = "__sa_unstar"
)

// helpers are all the helper names above.
var helpers = []string{
	HelperAssert,
	HelperAttr,
	HelperBinop,
	HelperBox,
	HelperCell,
	HelperClass,
	HelperCmpConst,
	HelperDelGlobal,
	HelperDelSlice,
	HelperEnter,
	HelperEq,
	HelperNe,
	HelperExcMatch,
	HelperFormat,
	HelperGenerator,
	HelperGenexpr,
	HelperGlobals,
	HelperIPlus,
	HelperImport,
	HelperIndex,
	HelperIs,
	HelperIter,
	HelperKwargs,
	HelperLoop,
	HelperLoopCheck,
	HelperMod,
	HelperMul,
	HelperPlus,
	HelperPow,
	HelperRaise,
	HelperReraise,
	HelperSetSlice,
	HelperSetVar,
	HelperSlice,
	HelperStar,
	HelperSuper,
	HelperTry,
	HelperUnbind,
	HelperUnpack,
	HelperYield,
	HelperYieldFrom,
	HelperWithEnter,
	HelperWithExit,
	HelperInplace,
	HelperMatmul,
	HelperDelItem,
	HelperEllipsis,
	HelperUnstar,
	HelperLt,
	HelperLe,
	HelperGt,
	HelperGe,
	HelperFloorDiv,
	HelperRem,
	HelperNumMul,
}

// Helpers returns the names of every helper lowered code may call, HelperImport included.
func Helpers() []string { return append([]string(nil), helpers...) }

// ReaderKey is the thread-local key under which an executor may store a
// Reader: the builtins that read the outside world (the clocks of time
// and datetime, the seed of a random generator made without one) ask it
// instead of reading the system themselves, so that an execution can be
// recorded and, when it runs again, answered with the same values.
const ReaderKey = "star-agent.reader"

// A Reader answers the readings of one execution, in the order the code
// makes them: from a record, or live (calling live) and recorded.
type Reader interface {
	Read(live func() int64) int64
}
