package builtins

// Operators whose go.starlark.net semantics differ from Python's: bool is
// an int in arithmetic (True + 1, n - (a < b), -True), and == follows
// Python (1 == True, 1.0 == True, nan != nan, element by element in lists
// and tuples).

import (
	"math"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

const (
	// HelperBinop: __sa_binop(op, x, y) is x op y for op one of "-", "/",
	// "//", "%", "&", "|", "^", "<<", ">>" with Python's bool-as-int rules.
	// The front end uses it when an operand may be a bool.
	HelperBinop = "__sa_binop"
	// HelperEq: __sa_eq(x, y) is Python's x == y.
	HelperEq = "__sa_eq"
)

var binopTokens = map[string]syntax.Token{
	"+": syntax.PLUS, "-": syntax.MINUS, "*": syntax.STAR, "/": syntax.SLASH, "//": syntax.SLASHSLASH,
	"%": syntax.PERCENT, "&": syntax.AMP, "|": syntax.PIPE, "^": syntax.CIRCUMFLEX,
	"<<": syntax.LTLT, ">>": syntax.GTGT,
}

func init() {
	moreRuntime[HelperBinop] = saBinop
	moreRuntime[HelperEq] = saEq
}

func saBinop(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 3 || len(kwargs) != 0 {
		return nil, Errorf("TypeError", "%s takes 3 arguments", HelperBinop)
	}
	op, _ := starlark.AsString(args[0])
	tok, ok := binopTokens[op]
	if !ok {
		return nil, Errorf("TypeError", "%s: unknown operator %q", HelperBinop, op)
	}
	switch tok {
	case syntax.PLUS:
		return add(th, args[1], args[2])
	case syntax.STAR:
		return mul(th, args[1], args[2])
	case syntax.PERCENT:
		if _, isStr := args[1].(starlark.String); isStr {
			return saMod(th, nil, args[1:], nil)
		}
	}
	return binaryOp(tok)(th, args[1], args[2])
}

func saEq(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 || len(kwargs) != 0 {
		return nil, Errorf("TypeError", "%s takes 2 arguments", HelperEq)
	}
	eq, err := pyEqual(args[0], args[1], 0)
	return starlark.Bool(eq), err
}

// maxEqDepth bounds the nesting pyEqual follows, as CPython's recursion
// limit does.
const maxEqDepth = 1000

// pyEqual is Python's x == y for the values whose go.starlark.net
// equality differs: bools against numbers, NaN, and lists and tuples
// holding those.
func pyEqual(x, y starlark.Value, depth int) (bool, error) {
	if depth > maxEqDepth {
		return false, Errorf("RecursionError", "maximum recursion depth exceeded in comparison")
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
		if b, ok := y.(starlark.Tuple); ok {
			return seqEqual(a, b, depth)
		}
		return false, nil
	case *starlark.List:
		if b, ok := y.(*starlark.List); ok {
			if a == b {
				return true, nil
			}
			return seqEqual(listItems(a), listItems(b), depth)
		}
		return false, nil
	}
	if eq, ok, err := frozenSetEqual(x, y); ok {
		return eq, err
	}
	return starlark.Equal(x, y)
}

func listItems(l *starlark.List) []starlark.Value {
	out := make([]starlark.Value, l.Len())
	for i := range out {
		out[i] = l.Index(i)
	}
	return out
}

// seqEqual compares items pairwise.
func seqEqual(a, b []starlark.Value, depth int) (bool, error) {
	if len(a) != len(b) {
		return false, nil
	}
	for i := range a {
		eq, err := pyEqual(a[i], b[i], depth+1)
		if err != nil || !eq {
			return false, err
		}
	}
	return true, nil
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
	x, y = numArg(x), numArg(y)
	eq, err := starlark.Equal(x, y)
	return err == nil && eq
}
