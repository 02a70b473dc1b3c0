package core

import (
	"math"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Operators whose go.starlark.net semantics differ from Python's: bool is
// an int in arithmetic (True + 1, n - (a < b), -True), and == follows
// Python (1 == True, 1.0 == True, nan != nan, element by element in lists
// and tuples).

var binopTokens = map[string]syntax.Token{
	"+": syntax.PLUS, "-": syntax.MINUS, "*": syntax.STAR, "/": syntax.SLASH, "//": syntax.SLASHSLASH,
	"%": syntax.PERCENT, "&": syntax.AMP, "|": syntax.PIPE, "^": syntax.CIRCUMFLEX,
	"<<": syntax.LTLT, ">>": syntax.GTGT,
}

func SaBinop(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 3 || len(kwargs) != 0 {
		return nil, Errorf(pyexc.TypeError, "%s takes 3 arguments", contract.HelperBinop)
	}
	op, _ := starlark.AsString(args[0])
	tok, ok := binopTokens[op]
	if !ok {
		return nil, Errorf(pyexc.TypeError, "%s: unknown operator %q", contract.HelperBinop, op)
	}
	switch tok {
	case syntax.PLUS:
		return Add(th, args[1], args[2])
	case syntax.PERCENT:
		if _, isStr := args[1].(starlark.String); isStr {
			return SaMod(th, nil, args[1:], nil)
		}
	}
	// NumBinary computes with a bool as the int it is (bool & bool, |
	// and ^ stay bools).
	return NumBinary(th, tok, args[1], args[2])
}

func SaEq(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 || len(kwargs) != 0 {
		return nil, Errorf(pyexc.TypeError, "%s takes 2 arguments", contract.HelperEq)
	}
	if v, ok, err := instanceEq(th, args[0], args[1]); ok {
		return v, err
	}
	eq, err := pyEqual(th, args[0], args[1])
	return starlark.Bool(eq), err
}

// SaNe is Python's x != y: the __ne__ of an instance whose class defines
// one (tried on x, then reflected on y), and otherwise not x == y, as
// object.__ne__ gives.
func SaNe(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 || len(kwargs) != 0 {
		return nil, Errorf(pyexc.TypeError, "%s takes 2 arguments", contract.HelperNe)
	}
	if v, ok, err := instanceNe(th, args[0], args[1]); ok {
		return v, err
	}
	eq, err := SaEq(th, nil, args, nil)
	if err != nil {
		return nil, err
	}
	return !eq.Truth(), nil
}

// instanceNe is x != y when x or y is an instance whose class defines
// __ne__: what it returned, whatever it is; an operand without one
// answers as object.__ne__ does, the negation of its __eq__ unless that
// returned NotImplemented; identity when neither answers. ok is false
// when neither operand defines __ne__.
func instanceNe(th *starlark.Thread, x, y starlark.Value) (v starlark.Value, ok bool, err error) {
	a, aok := x.(*Instance)
	b, bok := y.(*Instance)
	if (!aok || a.Dunder("__ne__") == nil) && (!bok || b.Dunder("__ne__") == nil) {
		return nil, false, nil
	}
	ask := func(o *Instance, other starlark.Value) (starlark.Value, bool, error) {
		if o.Dunder("__ne__") != nil {
			v, _, err := o.CallDunder(th, "__ne__", other)
			return v, err != nil || v != NotImplemented, err
		}
		if o.Dunder("__eq__") != nil {
			v, _, err := o.CallDunder(th, "__eq__", other)
			if err != nil || v != NotImplemented {
				return !v.Truth(), true, err
			}
		}
		return nil, false, nil
	}
	if aok {
		if v, done, err := ask(a, y); done {
			return v, true, err
		}
	}
	if bok {
		if v, done, err := ask(b, x); done {
			return v, true, err
		}
	}
	return starlark.Bool(!SameObject(x, y)), true, nil
}

// instanceEq is x == y when x or y is an instance whose class defines
// __eq__: what __eq__ returned, whatever it is (Python does not make it
// a bool), tried on x, then reflected on y, and identity when both
// return NotImplemented. go.starlark.net compares values of different
// types as unequal without asking either. ok is false when neither
// operand has an __eq__ of its own.
func instanceEq(th *starlark.Thread, x, y starlark.Value) (v starlark.Value, ok bool, err error) {
	a, aok := x.(*Instance)
	b, bok := y.(*Instance)
	if !aok && !bok {
		return nil, false, nil
	}
	if aok && a.Dunder("__eq__") == nil {
		aok = false
	}
	if bok && b.Dunder("__eq__") == nil {
		bok = false
	}
	if !aok && !bok {
		return nil, false, nil
	}
	if aok {
		v, _, err := a.CallDunder(th, "__eq__", y)
		if err != nil || v != NotImplemented {
			return v, true, err
		}
	}
	if bok {
		v, _, err := b.CallDunder(th, "__eq__", x)
		if err != nil || v != NotImplemented {
			return v, true, err
		}
	}
	return starlark.Bool(SameObject(x, y)), true, nil
}

// maxEqDepth bounds the nesting pyEqual follows, as CPython's recursion
// limit does.
const maxEqDepth = 1000

// pyEqual is Python's x == y for the values whose go.starlark.net
// equality differs: bools against numbers, NaN, and lists and tuples
// holding those. th, which may be nil, is the thread it runs for: the
// comparison fails with its Interrupt once it is stopped.
func pyEqual(th *starlark.Thread, x, y starlark.Value) (bool, error) {
	e := pyEq{th: th}
	return e.equal(x, y, 0)
}

// pyEq is one == in progress. Like the VM's comparisons
// (vm/starlark/compare.go), which it makes of the values it does not
// compare itself, it takes items that are the same list or tuple to be
// equal, as CPython does; it remembers the pairs of nested lists and
// tuples it found equal at a cost of many items, so that values sharing
// their parts compare in time linear in their distinct parts rather than
// exponential; and it looks at its thread's deadline every CheckEvery
// items.
type pyEq struct {
	th    *starlark.Thread
	work  uint64
	known map[eqPair]struct{}
}

// eqPair is a pair of lists (their pointers) or tuples (their first
// items' addresses and their lengths).
type eqPair struct {
	x, y   any
	xn, yn int
}

const (
	eqMemoCost = 64      // items a nested pair's comparison looked at, for it to be remembered
	eqMemoMax  = 1 << 16 // pairs remembered at most
)

func (e *pyEq) equal(x, y starlark.Value, depth int) (bool, error) {
	if depth > maxEqDepth {
		return false, Errorf(pyexc.RecursionError, "maximum recursion depth exceeded in comparison")
	}
	// A namedtuple equals the plain tuple of its items, an IntEnum its int.
	x, y = baseOperands(x, y)
	switch a := x.(type) {
	case starlark.Int, starlark.Bool:
		switch y.(type) {
		case starlark.Int, starlark.Bool, starlark.Float:
			return numEqual(x, y), nil
		}
	case starlark.Float:
		switch y.(type) {
		case starlark.Int, starlark.Bool, starlark.Float:
			return numEqual(x, y), nil
		}
	case starlark.Tuple:
		b, ok := y.(starlark.Tuple)
		if !ok {
			return false, nil
		}
		if len(a) != len(b) {
			return false, nil
		}
		if len(a) == 0 || &a[0] == &b[0] {
			return true, nil
		}
		return e.seq(eqPair{&a[0], &b[0], len(a), len(b)}, a, b, depth)
	case *starlark.List:
		b, ok := y.(*starlark.List)
		if !ok {
			return false, nil
		}
		if a == b {
			return true, nil
		}
		if a.Len() != b.Len() {
			return false, nil
		}
		return e.seq(eqPair{x: a, y: b}, listItems(a), listItems(b), depth)
	}
	if eq, ok, err := frozenSetEqual(x, y); ok {
		return eq, err
	}
	if eq, ok, err := e.containers(x, y, depth); ok {
		return eq, err
	}
	return starlark.EqualOn(e.th, x, y)
}

func listItems(l *starlark.List) []starlark.Value {
	out := make([]starlark.Value, l.Len())
	for i := range out {
		out[i] = l.Index(i)
	}
	return out
}

// seq compares the items of two lists or tuples, key, of equal lengths
// pairwise.
func (e *pyEq) seq(key eqPair, a, b []starlark.Value, depth int) (bool, error) {
	if len(e.known) > 0 {
		if _, ok := e.known[key]; ok {
			return true, nil
		}
	}
	before := e.work
	for i := range a {
		if err := e.tick(); err != nil {
			return false, err
		}
		if sameContainer(a[i], b[i]) {
			continue
		}
		eq, err := e.equal(a[i], b[i], depth+1)
		if err != nil || !eq {
			return false, err
		}
	}
	if depth > 0 && e.work-before >= eqMemoCost && len(e.known) < eqMemoMax {
		if e.known == nil {
			e.known = make(map[eqPair]struct{})
		}
		e.known[key] = struct{}{}
	}
	return true, nil
}

// tick counts an item looked at, and fails once the comparison's
// execution is stopped.
func (e *pyEq) tick() error {
	if e.work++; e.work%CheckEvery != 0 {
		return nil
	}
	return Interrupted(e.th)
}

// sameContainer reports whether x and y are the same list, tuple, dict
// or set, which Python's containers take to be equal to itself without
// comparing (PyObject_RichCompareBool).
func sameContainer(x, y starlark.Value) bool {
	switch a := x.(type) {
	case *starlark.List:
		b, ok := y.(*starlark.List)
		return ok && a == b
	case starlark.Tuple:
		b, ok := y.(starlark.Tuple)
		return ok && len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
	case *starlark.Dict:
		b, ok := y.(*starlark.Dict)
		return ok && a == b
	case *starlark.Set:
		b, ok := y.(*starlark.Set)
		return ok && a == b
	}
	return false
}

func isNaN(v starlark.Value) bool {
	f, ok := v.(starlark.Float)
	return ok && math.IsNaN(float64(f))
}

// numEqual compares two numbers (int, bool or float) exactly.
func numEqual(x, y starlark.Value) bool {
	if isNaN(x) || isNaN(y) {
		return false
	}
	x, y = Numeric(x), Numeric(y)
	eq, err := starlark.Equal(x, y)
	return err == nil && eq
}
