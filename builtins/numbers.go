package builtins

import (
	"math"
	"math/big"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Numbers shared by the modules that compute as CPython's numeric tower
// does (statistics, fractions, decimal): the protocol of the numeric
// types modules define, and Python's arithmetic on any two numbers.

// pyNumber is implemented by the numeric types modules define
// (fractions.Fraction, decimal.Decimal): what float(), int(), the math
// functions and statistics ask of them (__float__, __int__ and
// as_integer_ratio in CPython).
type pyNumber interface {
	starlark.Value
	// pyFloat is float(x).
	pyFloat() (float64, error)
	// pyInt is int(x), truncated toward zero.
	pyInt() (starlark.Int, error)
	// exactRatio is x.as_integer_ratio(); ok is false for NaN and
	// infinities.
	exactRatio() (r *big.Rat, ok bool)
}

// pyRounder is implemented by the numeric types of modules for abs(),
// round(), math.floor and math.ceil (CPython's __abs__, __round__,
// __floor__ and __ceil__).
type pyRounder interface {
	pyAbs() (starlark.Value, error)
	pyRound(ndigits starlark.Value) (starlark.Value, error)
	pyFloorCeil(ceil bool) (starlark.Value, error)
}

// numberPow is a ** b when either is a module's numeric type; ok is false
// otherwise.
func numberPow(th *starlark.Thread, a, b starlark.Value) (starlark.Value, bool, error) {
	if r, ok, err := fractionPow(th, a, b); ok {
		return r, true, err
	}
	if r, ok, err := decimalPow(a, b); ok {
		return r, true, err
	}
	return nil, false, nil
}

// intTrueDiv is int / int as CPython computes it: correctly rounded,
// whatever the sizes of the operands.
func intTrueDiv(a, b *big.Int) (starlark.Value, error) {
	if b.Sign() == 0 {
		return nil, Errorf("ZeroDivisionError", "division by zero")
	}
	f, _ := new(big.Rat).SetFrac(a, b).Float64()
	if math.IsInf(f, 0) {
		return nil, Errorf("OverflowError", "integer division result too large for a float")
	}
	return starlark.Float(f), nil
}

// ratFloat is float(Fraction(r)): correctly rounded, OverflowError when
// too large.
func ratFloat(r *big.Rat) (float64, error) {
	f, _ := r.Float64()
	if math.IsInf(f, 0) {
		return 0, Errorf("OverflowError", "integer division result too large for a float")
	}
	return f, nil
}

// pyArith is x op y with Python's semantics for any two numbers: bools
// are ints, int / int is correctly rounded, and the numeric types of
// modules do their own arithmetic.
func pyArith(th *starlark.Thread, op syntax.Token, x, y starlark.Value) (starlark.Value, error) {
	x, y = numArg(x), numArg(y)
	switch op {
	case syntax.SLASH:
		a, aok := x.(starlark.Int)
		b, bok := y.(starlark.Int)
		if aok && bok {
			return intTrueDiv(a.BigInt(), b.BigInt())
		}
	case syntax.PLUS:
		return add(th, x, y)
	case syntax.STAR:
		return mul(th, x, y)
	}
	return binaryOp(op)(th, x, y)
}

// numberOperands gives == and ordering the operands CPython compares when
// a module's numeric type meets another number: exact comparison of the
// values (Decimal('0.5') == Fraction(1, 2) == 0.5), as the ints -1, 0 or
// 1 against 0, or NaN against 0 when unordered. ok is false when neither
// is such a type, or one is a Decimal NaN (whose ordering raises).
func numberOperands(x, y starlark.Value) (starlark.Value, starlark.Value, bool) {
	_, xn := x.(pyNumber)
	_, yn := y.(pyNumber)
	if !xn && !yn {
		return x, y, false
	}
	// value is v as an exact ratio, or as ±1 for an infinity; nan reports
	// NaN, and ok false a value that is not a number.
	value := func(v starlark.Value) (r *big.Rat, inf int, nan, ok bool) {
		switch n := numArg(v).(type) {
		case starlark.Int:
			return new(big.Rat).SetInt(n.BigInt()), 0, false, true
		case starlark.Float:
			f := float64(n)
			switch {
			case math.IsNaN(f):
				return nil, 0, true, true
			case math.IsInf(f, 0):
				return nil, int(math.Copysign(1, f)), false, true
			}
			return new(big.Rat).SetFloat64(f), 0, false, true
		case *Decimal:
			switch n.kind {
			case 'F':
				return nil, 1 - 2*n.sign, false, true
			case 'n', 'N':
				return nil, 0, true, false
			}
			r, _ := n.exactRatio()
			return r, 0, false, true
		case pyNumber:
			r, _ := n.exactRatio()
			return r, 0, false, true
		}
		return nil, 0, false, false
	}
	// Mixing a Decimal and a float is recorded in the context.
	for _, p := range [][2]starlark.Value{{x, y}, {y, x}} {
		if d, ok := p[0].(*Decimal); ok {
			if _, ok := p[1].(starlark.Float); ok {
				d.ctx.flags["FloatOperation"] = true
			}
		}
	}
	rx, ix, nx, okx := value(x)
	ry, iy, ny, oky := value(y)
	if !okx || !oky {
		return x, y, false
	}
	if nx || ny {
		return starlark.Float(math.NaN()), starlark.MakeInt(0), true
	}
	var c int
	switch {
	case ix != 0 || iy != 0:
		c = threeSign(ix - iy)
	default:
		c = rx.Cmp(ry)
	}
	return starlark.MakeInt(c), starlark.MakeInt(0), true
}

// numberDivmod is divmod(a, b) when either is a module's numeric type;
// ok is false otherwise.
func numberDivmod(a, b starlark.Value) (starlark.Value, bool, error) {
	if d, ok := a.(*Decimal); ok {
		o, ok := d.operand(b)
		if !ok {
			return nil, true, Errorf("TypeError", "unsupported operand type(s) for divmod(): 'decimal.Decimal' and '%s'", TypeName(b))
		}
		q, r, err := d.floordiv(o, true, true)
		if err != nil {
			return nil, true, err
		}
		return starlark.Tuple{q, r}, true, nil
	}
	if d, ok := b.(*Decimal); ok {
		o, ok := d.operand(a)
		if !ok {
			return nil, true, Errorf("TypeError", "unsupported operand type(s) for divmod(): '%s' and 'decimal.Decimal'", TypeName(a))
		}
		q, r, err := o.floordiv(d, true, true)
		if err != nil {
			return nil, true, err
		}
		return starlark.Tuple{q, r}, true, nil
	}
	_, af := a.(*Fraction)
	_, bf := b.(*Fraction)
	if !af && !bf {
		return nil, false, nil
	}
	q, err := starlark.Binary(syntax.SLASHSLASH, a, b)
	if err != nil {
		return nil, true, err
	}
	r, err := starlark.Binary(syntax.PERCENT, a, b)
	if err != nil {
		return nil, true, err
	}
	return starlark.Tuple{q, r}, true, nil
}

// pyNumberHash is CPython's hash() of a finite float, a Fraction or a
// Decimal: the hash of the rational value, equal for equal numbers of
// any type. ok is false for NaN (whose hash is its identity).
func pyNumberHash(v starlark.Value) (int64, bool) {
	var r *big.Rat
	switch x := v.(type) {
	case starlark.Float:
		f := float64(x)
		switch {
		case math.IsNaN(f):
			return 0, false
		case math.IsInf(f, 0):
			return int64(math.Copysign(314159, f)), true
		}
		r = new(big.Rat).SetFloat64(f)
	case *Decimal:
		switch x.kind {
		case 'F':
			return int64(314159 * (1 - 2*x.sign)), true
		case 'n', 'N':
			return 0, false
		}
		r = x.hashRatio() // 10**exp reduced modulo the hash's prime
	case pyNumber:
		r, _ = x.exactRatio()
	default:
		return 0, false
	}
	return ratHash(r), true
}
