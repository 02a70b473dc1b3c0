package core

import (
	"math/big"
	"strings"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// MaxIntBits bounds the size of integers built by * and **: a result
// larger than this (about 315,000 decimal digits) is refused before it is
// computed, so a single expression cannot take the process's memory or
// minutes of CPU.
const MaxIntBits = 1 << 20

func init() {
	// The string methods are defined first: the tables of bytes and of
	// the other types reuse some of them.
	defineStrMethods()
	defineMethods()
}

func twoArgs(name string, args starlark.Tuple, kwargs []starlark.Tuple) (a, b starlark.Value, err error) {
	err = starlark.UnpackPositionalArgs(name, args, kwargs, 2, &a, &b)
	return
}

func SaMul(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	a, b, err := twoArgs(contract.HelperMul, args, kwargs)
	if err != nil {
		return nil, err
	}
	return Mul(th, a, b)
}

// Mul is a * b with the size of the result checked before it is built.
func Mul(th *starlark.Thread, a, b starlark.Value) (starlark.Value, error) {
	if c, ok := a.(*inplaceContainer); ok {
		return c.imul(th, b) // x *= n
	}
	if x, ok := a.(starlark.Bool); ok {
		if y, ok := b.(starlark.Bool); ok {
			return MulInts(BoolInt(x), BoolInt(y)) // True * True is 1
		}
	}
	if isNumber(a) || isNumber(b) {
		a, b = Unbool(a, b)
	}
	if x, ok := a.(starlark.Int); ok {
		if y, ok := b.(starlark.Int); ok {
			return MulInts(x, y)
		}
	}
	seq, n := a, b
	if _, ok := a.(starlark.Int); ok {
		seq, n = b, a
	}
	if bn, ok := n.(starlark.Bool); ok {
		n = BoolInt(bn)
	}
	if count, ok := n.(starlark.Int); ok {
		var unit int64
		switch s := seq.(type) {
		case starlark.String:
			unit = int64(len(s))
		case starlark.Bytes:
			unit = int64(len(s))
		case *starlark.List:
			unit = int64(s.Len()) * ElemSize
		case starlark.Tuple:
			unit = int64(len(s)) * ElemSize
		default:
			unit = -1
		}
		if unit >= 0 {
			c, ok := count.Int64()
			if !ok && count.Sign() > 0 {
				return nil, Errorf(pyexc.OverflowError, "cannot fit 'int' into an index-sized integer")
			}
			if c <= 0 || unit == 0 {
				c = 0
			}
			if c > 0 && unit > 0 && c > (1<<62)/unit {
				return nil, Errorf(pyexc.MemoryError, "repeat count %d is too large", c)
			}
			if err := Alloc(th, unit*c); err != nil {
				return nil, err
			}
			return repeat(seq, int(c))
		}
	}
	r, err := starlark.Binary(syntax.STAR, a, b)
	if err != nil {
		for _, pair := range [][2]starlark.Value{{a, b}, {b, a}} {
			if !strings.Contains(err.Error(), "unknown binary op") {
				break // an error of a user-defined __mul__
			}
			switch pair[0].(type) {
			case starlark.String, starlark.Bytes, *starlark.List, starlark.Tuple:
				if !isNumber(pair[1]) || pair[1].Type() == "float" {
					return nil, Errorf(pyexc.TypeError, "can't multiply sequence by non-int of type '%s'", TypeName(pair[1]))
				}
			}
		}
		return nil, BinaryError("*", a, b, err)
	}
	return r, nil
}

func repeat(seq starlark.Value, n int) (starlark.Value, error) {
	switch s := seq.(type) {
	case starlark.String:
		return starlark.String(strings.Repeat(string(s), n)), nil
	case starlark.Bytes:
		return starlark.Bytes(strings.Repeat(string(s), n)), nil
	case *starlark.List:
		out := make([]starlark.Value, 0, s.Len()*n)
		for i := 0; i < n; i++ {
			for j := 0; j < s.Len(); j++ {
				out = append(out, s.Index(j))
			}
		}
		return starlark.NewList(out), nil
	case starlark.Tuple:
		out := make(starlark.Tuple, 0, len(s)*n)
		for i := 0; i < n; i++ {
			out = append(out, s...)
		}
		return out, nil
	}
	return nil, Errorf(pyexc.TypeError, "cannot repeat %s", TypeName(seq))
}

// BinaryError rewords go.starlark.net's operator errors as CPython's,
// keeping errors raised by user-defined operators as they are.
func BinaryError(op string, a, b starlark.Value, err error) error {
	if _, ok := err.(*Error); ok {
		return err
	}
	if strings.Contains(err.Error(), "unknown binary op") {
		return Errorf(pyexc.TypeError, "unsupported operand type(s) for %s: '%s' and '%s'", op, TypeName(a), TypeName(b))
	}
	return err
}

func SaPow(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	a, b, err := twoArgs(contract.HelperPow, args, kwargs)
	if err != nil {
		return nil, err
	}
	return Pow(th, a, b)
}

// Pow is a ** b with Python's numeric rules: an int to a negative int
// power is a float, and integer results are bounded before computing.
func Pow(th *starlark.Thread, a, b starlark.Value) (starlark.Value, error) {
	if r, ok, err := numberPow(th, a, b); ok {
		return r, err
	}
	a, b = Numeric(a), Numeric(b)
	x, xInt := a.(starlark.Int)
	y, yInt := b.(starlark.Int)
	if xInt && yInt {
		if y.Sign() >= 0 {
			base := x.BigInt()
			if base.CmpAbs(big.NewInt(1)) <= 0 {
				// 0, 1 and -1 stay small for any exponent.
				switch {
				case y.Sign() == 0 || base.Sign() > 0:
					return starlark.MakeInt(1), nil
				case base.Sign() == 0:
					return starlark.MakeInt(0), nil
				case y.BigInt().Bit(0) == 0:
					return starlark.MakeInt(1), nil
				}
				return starlark.MakeInt(-1), nil
			}
			e, ok := y.Int64()
			if !ok || int64(base.BitLen()-1)*e > MaxIntBits {
				return nil, Errorf(pyexc.MemoryError, "integer result too large: %s ** %s has more than %d bits", a.String(), b.String(), MaxIntBits)
			}
			if err := Alloc(th, int64(base.BitLen())*e/8); err != nil {
				return nil, err
			}
			return starlark.MakeBigInt(new(big.Int).Exp(base, y.BigInt(), nil)), nil
		}
		if x.Sign() == 0 {
			return nil, Errorf(pyexc.ZeroDivisionError, "0.0 cannot be raised to a negative power")
		}
	}
	fx, ok1 := starlark.AsFloat(a)
	fy, ok2 := starlark.AsFloat(b)
	if !isNumber(a) || !isNumber(b) || !ok1 || !ok2 {
		if !isNumber(a) || !isNumber(b) {
			return nil, Errorf(pyexc.TypeError, "unsupported operand type(s) for ** or pow(): '%s' and '%s'", TypeName(a), TypeName(b))
		}
		return nil, Errorf(pyexc.OverflowError, "int too large to convert to float")
	}
	if intTooLarge(a, b) {
		return nil, errIntTooLarge()
	}
	return floatPowChecked(fx, fy)
}

func SaFmt(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	var conv, spec string
	if err := starlark.UnpackPositionalArgs(contract.HelperFormat, args, kwargs, 1, &v, &conv, &spec); err != nil {
		return nil, err
	}
	switch conv {
	case "":
	case "r", "s", "a":
		var s string
		var err error
		if conv == "s" {
			s, err = StrValue(th, v)
		} else {
			s, err = ReprValue(th, v)
			if conv == "a" {
				s = asciiRepr(s)
			}
		}
		if err != nil {
			return nil, err
		}
		v = starlark.String(s)
	default:
		return nil, Errorf(pyexc.ValueError, "Unknown conversion specifier %s", conv)
	}
	s, err := FormatValue(th, v, spec)
	if err != nil {
		return nil, err
	}
	return starlark.String(s), nil
}

func SaAttr(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 || len(kwargs) != 0 {
		return nil, Errorf(pyexc.TypeError, "%s takes 2 arguments", contract.HelperAttr)
	}
	name, ok := args[1].(starlark.String)
	if !ok {
		return nil, Errorf(pyexc.TypeError, "attribute name must be string")
	}
	return GetAttr(th, args[0], string(name))
}

func SaIs(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	a, b, err := twoArgs(contract.HelperIs, args, kwargs)
	if err != nil {
		return nil, err
	}
	return starlark.Bool(Identical(a, b)), nil
}

// Identical is Python's "is": the same object for mutable values; for
// immutable values of one type, equality stands in for identity (CPython
// shares None, booleans, small ints and interned strings).
func Identical(a, b starlark.Value) bool {
	switch x := a.(type) {
	case starlark.NoneType:
		return b == starlark.None
	case starlark.Bool:
		y, ok := b.(starlark.Bool)
		return ok && x == y
	case starlark.Int:
		y, ok := b.(starlark.Int)
		return ok && x.BigInt().Cmp(y.BigInt()) == 0
	case starlark.Float:
		y, ok := b.(starlark.Float)
		return ok && x == y
	case starlark.String:
		y, ok := b.(starlark.String)
		return ok && x == y
	case starlark.Bytes:
		y, ok := b.(starlark.Bytes)
		return ok && x == y
	case starlark.Tuple:
		y, ok := b.(starlark.Tuple)
		if !ok || len(x) != len(y) {
			return false
		}
		return len(x) == 0 || &x[0] == &y[0]
	}
	return SameObject(a, b)
}

// SameObject compares interface values for identity without panicking on
// values of uncomparable dynamic types (which then count as distinct).
func SameObject(a, b starlark.Value) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

func SaIter(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg(contract.HelperIter, args, kwargs)
	if err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case starlark.String, *Instance:
		// Strings iterate by code point. Instances run __iter__ and
		// __next__, user code whose exceptions a native for loop would
		// silently end on: their items are collected here, where an
		// exception propagates (an infinite iterator meets the limits).
		vals, err := Collect(th, v)
		if err != nil {
			return nil, err
		}
		return starlark.NewList(vals), nil
	case *starlark.Set:
		if vals, ok := setOrder(v); ok {
			if err := Alloc(th, int64(len(vals))*ElemSize); err != nil {
				return nil, err
			}
			return starlark.Tuple(vals), nil
		}
		return v, nil
	case starlark.Iterable:
		return v, nil
	}
	return nil, Errorf(pyexc.TypeError, "'%s' object is not iterable", TypeName(x))
}

func SaMod(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	a, b, err := twoArgs(contract.HelperMod, args, kwargs)
	if err != nil {
		return nil, err
	}
	if s, ok := a.(starlark.String); ok {
		out, err := percentFormat(th, string(s), b)
		if err != nil {
			return nil, err
		}
		return starlark.String(out), nil
	}
	if isNumber(a) || isNumber(b) {
		a, b = Unbool(a, b)
	}
	if zero(b) && isNumber(a) {
		if _, ok := a.(starlark.Float); ok {
			return nil, Errorf(pyexc.ZeroDivisionError, "float modulo")
		}
		if _, ok := b.(starlark.Float); ok {
			return nil, Errorf(pyexc.ZeroDivisionError, "float modulo")
		}
		return nil, Errorf(pyexc.ZeroDivisionError, "integer modulo by zero")
	}
	r, err := NumBinary(th, syntax.PERCENT, a, b)
	if err != nil {
		return nil, BinaryError("%", a, b, err)
	}
	return r, nil
}
