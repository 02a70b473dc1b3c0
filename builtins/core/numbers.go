package core

import (
	"math"
	"math/big"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Numbers shared by the modules that compute as CPython's numeric tower
// does (statistics, fractions, decimal): the protocol of the numeric
// types modules define, and Python's arithmetic on any two numbers.

// PyNumber is implemented by the numeric types modules define
// (fractions.Fraction, decimal.Decimal): what float(), int(), the math
// functions and statistics ask of them (__float__, __int__ and
// as_integer_ratio in CPython).
type PyNumber interface {
	starlark.Value
	// PyFloat is float(x).
	PyFloat() (float64, error)
	// PyInt is int(x), truncated toward zero.
	PyInt() (starlark.Int, error)
	// ExactRatio is x.as_integer_ratio(); ok is false for NaN and
	// infinities.
	ExactRatio() (r *big.Rat, ok bool)
}

// PyRounder is implemented by the numeric types of modules for abs(),
// round(), math.floor and math.ceil (CPython's __abs__, __round__,
// __floor__ and __ceil__).
type PyRounder interface {
	PyAbs() (starlark.Value, error)
	PyRound(ndigits starlark.Value) (starlark.Value, error)
	PyFloorCeil(ceil bool) (starlark.Value, error)
}

// The optional parts of the protocol of modules' numeric types.
type (
	// numberPower is a type with its own a ** b, where a or b (or both)
	// is of the type; ok is false when the type does not apply.
	numberPower interface {
		NumberPow(th *starlark.Thread, a, b starlark.Value) (r starlark.Value, ok bool, err error)
	}
	// numberDivmoder is a type with its own divmod(a, b), as numberPower.
	numberDivmoder interface {
		NumberDivmod(a, b starlark.Value) (r starlark.Value, ok bool, err error)
	}
	// specialNumber is a type with infinities and NaNs beyond float's
	// (Decimal): inf is +1 or -1 for an infinity, nan true for a NaN.
	specialNumber interface {
		SpecialValue() (inf int, nan bool)
	}
	// ratioHasher is a type whose hash is of another ratio than its exact
	// value (Decimal: 10**exp reduced modulo the hash's prime).
	ratioHasher interface {
		HashRatio() *big.Rat
	}
	// floatMixer is a type that records being compared with a float
	// (Decimal's FloatOperation signal).
	floatMixer interface {
		MixedWithFloat()
	}
)

// numberPow is a ** b when either is a module's numeric type; ok is false
// otherwise.
func numberPow(th *starlark.Thread, a, b starlark.Value) (starlark.Value, bool, error) {
	for _, v := range [2]starlark.Value{a, b} {
		if p, ok := v.(numberPower); ok {
			if r, ok, err := p.NumberPow(th, a, b); ok {
				return r, true, err
			}
		}
	}
	return nil, false, nil
}

// IntTrueDiv is int / int as CPython computes it: correctly rounded,
// whatever the sizes of the operands.
func IntTrueDiv(a, b *big.Int) (starlark.Value, error) {
	if b.Sign() == 0 {
		return nil, Errorf(pyexc.ZeroDivisionError, "division by zero")
	}
	f, _ := new(big.Rat).SetFrac(a, b).Float64()
	if math.IsInf(f, 0) {
		return nil, Errorf(pyexc.OverflowError, "integer division result too large for a float")
	}
	return starlark.Float(f), nil
}

// RatFloat is float(Fraction(r)): correctly rounded, OverflowError when
// too large.
func RatFloat(r *big.Rat) (float64, error) {
	f, _ := r.Float64()
	if math.IsInf(f, 0) {
		return 0, Errorf(pyexc.OverflowError, "integer division result too large for a float")
	}
	return f, nil
}

// PyArith is x op y with Python's semantics for any two numbers: bools
// are ints, int / int is correctly rounded, and the numeric types of
// modules do their own arithmetic.
func PyArith(th *starlark.Thread, op syntax.Token, x, y starlark.Value) (starlark.Value, error) {
	x, y = Numeric(x), Numeric(y)
	switch op {
	case syntax.SLASH:
		a, aok := x.(starlark.Int)
		b, bok := y.(starlark.Int)
		if aok && bok {
			return IntTrueDiv(a.BigInt(), b.BigInt())
		}
	case syntax.PLUS:
		return Add(th, x, y)
	}
	return NumBinary(th, op, x, y)
}

// numberOperands gives == and ordering the operands CPython compares when
// a module's numeric type meets another number: exact comparison of the
// values (Decimal('0.5') == Fraction(1, 2) == 0.5), as the ints -1, 0 or
// 1 against 0, or NaN against 0 when unordered. ok is false when neither
// is such a type, or one is a Decimal NaN (whose ordering raises).
func numberOperands(x, y starlark.Value) (starlark.Value, starlark.Value, bool) {
	_, xn := x.(PyNumber)
	_, yn := y.(PyNumber)
	if !xn && !yn {
		return x, y, false
	}
	// value is v as an exact ratio, or as ±1 for an infinity; nan reports
	// NaN, and ok false a value that is not a number.
	value := func(v starlark.Value) (r *big.Rat, inf int, nan, ok bool) {
		switch n := Numeric(v).(type) {
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
		case PyNumber:
			if s, ok := n.(specialNumber); ok {
				switch inf, nan := s.SpecialValue(); {
				case nan:
					return nil, 0, true, false
				case inf != 0:
					return nil, inf, false, true
				}
			}
			r, _ := n.ExactRatio()
			return r, 0, false, true
		}
		return nil, 0, false, false
	}
	// Mixing a Decimal and a float is recorded in the context.
	for _, p := range [][2]starlark.Value{{x, y}, {y, x}} {
		if m, ok := p[0].(floatMixer); ok {
			if _, ok := p[1].(starlark.Float); ok {
				m.MixedWithFloat()
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
		c = ThreeSign(ix - iy)
	default:
		c = rx.Cmp(ry)
	}
	return starlark.MakeInt(c), starlark.MakeInt(0), true
}

// numberDivmod is divmod(a, b) when either is a module's numeric type;
// ok is false otherwise.
func numberDivmod(a, b starlark.Value) (starlark.Value, bool, error) {
	for _, v := range [2]starlark.Value{a, b} {
		if d, ok := v.(numberDivmoder); ok {
			if r, ok, err := d.NumberDivmod(a, b); ok {
				return r, true, err
			}
		}
	}
	_, an := a.(PyNumber)
	_, bn := b.(PyNumber)
	if !an && !bn {
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
	case PyNumber:
		if s, ok := x.(specialNumber); ok {
			switch inf, nan := s.SpecialValue(); {
			case nan:
				return 0, false
			case inf != 0:
				return int64(314159 * inf), true
			}
		}
		if h, ok := x.(ratioHasher); ok {
			r = h.HashRatio()
		} else {
			r, _ = x.ExactRatio()
		}
	default:
		return 0, false
	}
	return RatHash(r), true
}

// RatHash is CPython's hash of a rational: |n| * inverse(d) modulo
// 2**61 - 1, with n's sign.
func RatHash(r *big.Rat) int64 {
	m := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 61), big.NewInt(1))
	dinv := new(big.Int).Exp(r.Denom(), new(big.Int).Sub(m, big.NewInt(2)), m)
	var h int64
	if dinv.Sign() == 0 {
		h = 314159 // sys.hash_info.inf
	} else {
		n := new(big.Int).Abs(r.Num())
		n.Mod(n, m)
		h = n.Mul(n, dinv).Mod(n, m).Int64()
	}
	if r.Sign() < 0 {
		h = -h
	}
	if h == -1 {
		h = -2
	}
	return h
}

// CompareFallback answers == and != between values of unrelated types
// that go.starlark.net took for one type, and refuses ordering.
func CompareFallback(op syntax.Token, x, y starlark.Value) (bool, error) {
	switch op {
	case syntax.EQL:
		return false, nil
	case syntax.NEQ:
		return true, nil
	}
	return false, Errorf(pyexc.TypeError, "'%s' not supported between instances of '%s' and '%s'", op, TypeName(x), TypeName(y))
}

// Pow10 is 10**n.
func Pow10(n int) *big.Int {
	if n <= 0 {
		return big.NewInt(1)
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// DecimalRatioError is the error of as_integer_ratio (and Fraction(d))
// for a NaN or an infinity.
func DecimalRatioError(v starlark.Value) error {
	if s, ok := v.(specialNumber); ok {
		if inf, _ := s.SpecialValue(); inf != 0 {
			return Errorf(pyexc.OverflowError, "cannot convert Infinity to integer ratio")
		}
	}
	return Errorf(pyexc.ValueError, "cannot convert NaN to integer ratio")
}

func ThreeSign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
