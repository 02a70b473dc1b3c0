package builtins

import (
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// pyCompare is x op y for op one of <, <=, >, >= as CPython evaluates
// it. Tuples and lists are compared item by item here rather than by
// go.starlark.net, so that a bool item compares as the int it is and an
// error names the items' types, as CPython's does ("'<' not supported
// between instances of 'NoneType' and 'int'"), not the sequences'.
func pyCompare(op syntax.Token, x, y starlark.Value) (bool, error) {
	x, y = baseOperands(x, y)
	xs, xok := x.(starlark.Indexable)
	ys, yok := y.(starlark.Indexable)
	if xok && yok && sameSeqKind(x, y) {
		n, m := xs.Len(), ys.Len()
		for i := 0; i < n && i < m; i++ {
			a, b := xs.Index(i), ys.Index(i)
			if identical(a, b) {
				continue
			}
			eq, err := equal(a, b)
			if err != nil {
				return false, err
			}
			if !eq {
				return pyCompare(op, a, b)
			}
		}
		return threeWay(op, n-m), nil
	}
	if isNaN(x) || isNaN(y) {
		// go.starlark.net orders NaN above every number; in Python every
		// ordered comparison with it is false.
		return false, nil
	}
	if op == syntax.LT {
		return less(x, y)
	}
	x, y = unbool(x, y)
	xb, xok := x.(starlark.Bool)
	yb, yok := y.(starlark.Bool)
	if xok && yok {
		return threeWay(op, int(boolInt(xb).Sub(boolInt(yb)).Sign())), nil
	}
	r, err := starlark.Compare(op, x, y)
	if err != nil {
		if _, isErr := err.(*Error); isErr {
			return false, err
		}
		return false, Errorf("TypeError", "'%s' not supported between instances of '%s' and '%s'", op, TypeName(x), TypeName(y))
	}
	return r, nil
}

// pyLess is x < y (see pyCompare).
func pyLess(x, y starlark.Value) (bool, error) { return pyCompare(syntax.LT, x, y) }

func threeWay(op syntax.Token, c int) bool {
	switch op {
	case syntax.LT:
		return c < 0
	case syntax.LE:
		return c <= 0
	case syntax.GT:
		return c > 0
	case syntax.GE:
		return c >= 0
	case syntax.EQL:
		return c == 0
	}
	return c != 0
}

// sameSeqKind reports two tuples or two lists.
func sameSeqKind(x, y starlark.Value) bool {
	switch x.(type) {
	case starlark.Tuple:
		_, ok := y.(starlark.Tuple)
		return ok
	case *starlark.List:
		_, ok := y.(*starlark.List)
		return ok
	}
	return false
}
