package core

import (
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Integer arguments. CPython has one way to take an int from an
// argument, PyNumber_Index, and builtins and modules here use it through
// these functions instead of a converter each, so that every builtin
// accepts the same values (int, bool, objects with __index__) and fails
// with the same messages:
//
//   - Index: the argument as an int (operator.index, PyNumber_Index).
//   - IndexInt: the same, fitted in a Go int (PyNumber_AsSsize_t).
//   - SliceIndex: the same, clamped to a Go int, for slice bounds and
//     the start and end of str.find and the like (_PyEval_SliceIndex).
//
// Two helpers are not argument unpacking but views of a value already
// known to be numeric; they call no __index__ and never fail:
//
//   - Int: an int or a bool as an int (PyLong_Check), else false.
//   - Numeric: a bool replaced by its int, for arithmetic.

// Index converts v as operator.index does: an int is itself, a bool is
// 0 or 1, and an instance with __index__ gives what that returns, which
// must be an int. Floats and everything else are refused.
func Index(v starlark.Value) (starlark.Int, error) {
	switch x := v.(type) {
	case starlark.Int:
		return x, nil
	case starlark.Bool:
		return BoolInt(x), nil
	case *Instance:
		if n, ok := enumOperand(x).(starlark.Int); ok {
			return n, nil // an IntEnum member
		}
		r, ok, err := x.CallDunder(nil, "__index__")
		if ok {
			if err != nil {
				return starlark.Int{}, err
			}
			n, isInt := Int(r)
			if !isInt {
				return starlark.Int{}, Errorf(pyexc.TypeError, "__index__ returned non-int (type %s)", TypeName(r))
			}
			return n, nil
		}
	}
	return starlark.Int{}, Errorf(pyexc.TypeError, "'%s' object cannot be interpreted as an integer", TypeName(v))
}

// IndexInt is Index fitted in a Go int, as PyNumber_AsSsize_t with an
// OverflowError does: CPython's sizes, counts and positions.
func IndexInt(v starlark.Value) (int, error) {
	n, err := Index(v)
	if err != nil {
		return 0, err
	}
	i, ok := n.Int64()
	if !ok || i != int64(int(i)) {
		return 0, Errorf(pyexc.OverflowError, "Python int too large to convert to C ssize_t")
	}
	return int(i), nil
}

// SliceIndex converts a slice bound as _PyEval_SliceIndex does: Index,
// with huge values clamped (a bound past any length is as good as the
// length) and CPython's slice message for values that are no index.
func SliceIndex(v starlark.Value) (int, error) {
	if _, isInt := Int(v); !isInt {
		if o, ok := v.(*Instance); !ok || o.Dunder("__index__") == nil {
			return 0, Errorf(pyexc.TypeError, "slice indices must be integers or None or have an __index__ method")
		}
	}
	n, err := Index(v)
	if err != nil {
		return 0, err
	}
	i, ok := n.Int64()
	if !ok {
		if n.Sign() < 0 {
			return -1 << 62, nil
		}
		return 1 << 62, nil
	}
	return int(max(min(i, 1<<62), -1<<62)), nil
}

// Int reports whether v is an int as PyLong_Check sees it (bool is a
// subclass of int) and returns it as one. It calls no __index__.
func Int(v starlark.Value) (starlark.Int, bool) {
	switch x := v.(type) {
	case starlark.Int:
		return x, true
	case starlark.Bool:
		return BoolInt(x), true
	}
	return starlark.Int{}, false
}

// Numeric returns v as arithmetic sees it: a bool becomes the int 0 or
// 1, which go.starlark.net's operators accept; anything else is v.
func Numeric(v starlark.Value) starlark.Value {
	if b, ok := v.(starlark.Bool); ok {
		return BoolInt(b)
	}
	return v
}
