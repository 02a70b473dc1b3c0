package core

import (
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Arith turns bools into ints when both operands are numbers, as
// Python's arithmetic does.
func Arith(x, y starlark.Value) (starlark.Value, starlark.Value) {
	_, xb := x.(starlark.Bool)
	_, yb := y.(starlark.Bool)
	if xb || yb {
		if (xb || isNumber(x)) && (yb || isNumber(y)) {
			return Numeric(x), Numeric(y)
		}
	}
	return x, y
}

// BinaryOp is x op y through go.starlark.net (which dispatches to the
// operands' Binary methods); its errors are worded by Classify as the
// operator's own are.
func BinaryOp(op syntax.Token) func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
	return func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		xb, xok := x.(starlark.Bool)
		yb, yok := y.(starlark.Bool)
		if xok && yok {
			// bool & bool, | and ^ are bools.
			switch op {
			case syntax.AMP:
				return xb && yb, nil
			case syntax.PIPE:
				return xb || yb, nil
			case syntax.CIRCUMFLEX:
				return starlark.Bool(xb != yb), nil
			}
		}
		x, y = Arith(x, y)
		return starlark.Binary(op, x, y)
	}
}

// subscript is x[k] for an index or key k (not a slice), for
// operator.getitem and itemgetter.
func GetItem(th *starlark.Thread, x, k starlark.Value) (starlark.Value, error) {
	index := func(n int, what string) (int, error) {
		if inst, ok := k.(*Instance); ok {
			// An IntEnum member or an object with __index__.
			if _, isInt := enumOperand(inst).(starlark.Int); isInt || inst.Dunder("__index__") != nil {
				n, err := Index(inst)
				if err != nil {
					return 0, err
				}
				k = n
			}
		}
		switch k.(type) {
		case starlark.Int, starlark.Bool:
		default:
			if what == "string" {
				return 0, Errorf(pyexc.TypeError, "string indices must be integers, not '%s'", TypeName(k))
			}
			return 0, Errorf(pyexc.TypeError, "%s indices must be integers or slices, not %s", what, TypeName(k))
		}
		i, err := IndexInt(k)
		if err != nil {
			return 0, Errorf(pyexc.IndexError, "cannot fit 'int' into an index-sized integer")
		}
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return 0, Errorf(pyexc.IndexError, "%s index out of range", what)
		}
		return i, nil
	}
	switch v := x.(type) {
	case starlark.String:
		s := string(v)
		i, err := index(PyLen(s), "string")
		if err != nil {
			return nil, err
		}
		off := ByteOffset(s, i)
		return starlark.String(s[off : off+ByteOffset(s[off:], 1)]), nil
	case starlark.Mapping:
		r, found, err := v.Get(k)
		if err != nil {
			if _, ok := v.(*Instance); ok {
				return nil, err
			}
			return nil, Unhashable(k, err)
		}
		if !found {
			return nil, keyError(k)
		}
		return r, nil
	case starlark.Indexable:
		i, err := index(v.Len(), TypeName(x))
		if err != nil {
			return nil, err
		}
		return v.Index(i), nil
	}
	return nil, Errorf(pyexc.TypeError, "'%s' object is not subscriptable", TypeName(x))
}
