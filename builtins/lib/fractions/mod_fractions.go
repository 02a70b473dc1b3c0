package fractions

import (
	"math"
	"math/big"
	"strings"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// fractions.Fraction as CPython 3.11's fractions.py defines it: exact
// rationals in lowest terms whose arithmetic with ints stays exact and
// with floats gives floats, with its parser, reprs, rounding and
// limit_denominator. Results are bounded in size (maxFractionBits) and
// charged to the memory budget.

// maxFractionBits bounds a fraction's numerator and denominator together:
// every operation reduces its result by a gcd, quadratic in math/big and
// uninterruptible (1.7 s for two 2**20-bit numbers); at this size it
// takes about a tenth of a second.
const maxFractionBits = 1 << 19

// typeFraction is named Fraction, as the messages of CPython name it.
var typeFraction = &core.Type{PyName: "Fraction", Base: core.TypeObject}

// Fraction is a fractions.Fraction; r is in lowest terms, as big.Rat
// keeps it.
type Fraction struct{ R *big.Rat }

var (
	_ core.Representer   = (*Fraction)(nil)
	_ starlark.HasBinary = (*Fraction)(nil)
	_ starlark.HasUnary  = (*Fraction)(nil)
	_ starlark.HasAttrs  = (*Fraction)(nil)
	_ core.PyNumber      = (*Fraction)(nil)
)

func NewFraction(r *big.Rat) *Fraction { return &Fraction{R: r} }

func (f *Fraction) Type() string           { return "Fraction" }
func (f *Fraction) PyType() starlark.Value { return typeFraction }
func (f *Fraction) Freeze()                {}
func (f *Fraction) Truth() starlark.Bool   { return f.R.Sign() != 0 }
func (f *Fraction) String() string         { r, _ := f.PyRepr(nil); return r }

// Hash is CPython's hash of the rational (equal to the int's for an
// integral fraction), folded to 32 bits.
func (f *Fraction) Hash() (uint32, error) {
	h := core.RatHash(f.R)
	return uint32(h ^ h>>32), nil
}

func (f *Fraction) PyRepr(*starlark.Thread) (string, error) {
	return "Fraction(" + f.R.Num().String() + ", " + f.R.Denom().String() + ")", nil
}

func (f *Fraction) PyStr(*starlark.Thread) (string, error) {
	if f.R.IsInt() {
		return f.R.Num().String(), nil
	}
	return f.R.Num().String() + "/" + f.R.Denom().String(), nil
}

// PyFormat is object.__format__: Fraction has no format spec in 3.11.
func (f *Fraction) PyFormat(th *starlark.Thread, spec string) (string, error) {
	if spec != "" {
		return "", core.Errorf(pyexc.TypeError, "unsupported format string passed to Fraction.__format__")
	}
	return f.PyStr(th)
}

func (f *Fraction) PyFloat() (float64, error) { return core.RatFloat(f.R) }

func (f *Fraction) PyInt() (starlark.Int, error) {
	q := new(big.Int).Quo(f.R.Num(), f.R.Denom()) // truncates toward zero
	return starlark.MakeBigInt(q), nil
}

func (f *Fraction) ExactRatio() (*big.Rat, bool) { return f.R, true }

func (f *Fraction) PyAbs() (starlark.Value, error) { return NewFraction(new(big.Rat).Abs(f.R)), nil }

// PyFloorCeil is math.floor and math.ceil: exact ints.
func (f *Fraction) PyFloorCeil(ceil bool) (starlark.Value, error) {
	n := f.R.Num()
	if ceil {
		n = new(big.Int).Neg(n)
	}
	q, _ := floorDivMod(n, f.R.Denom())
	if ceil {
		q.Neg(q)
	}
	return starlark.MakeBigInt(q), nil
}

// PyRound is Fraction.__round__: half to even, to an int or (with
// ndigits) to a Fraction with a power of ten.
func (f *Fraction) PyRound(nd starlark.Value) (starlark.Value, error) {
	roundInt := func(r *big.Rat) *big.Int {
		fl, rem := floorDivMod(r.Num(), r.Denom())
		twice := new(big.Int).Lsh(rem, 1)
		switch c := twice.Cmp(r.Denom()); {
		case c > 0, c == 0 && fl.Bit(0) == 1:
			fl.Add(fl, big.NewInt(1))
		}
		return fl
	}
	if nd == nil || nd == starlark.None {
		return starlark.MakeBigInt(roundInt(f.R)), nil
	}
	n, err := core.IndexInt(nd)
	if err != nil {
		return nil, err
	}
	if core.Abs(n) > 100000 {
		return nil, core.Errorf(pyexc.MemoryError, "round(): ndigits %d is too large", n)
	}
	shift := new(big.Rat).SetInt(core.Pow10(core.Abs(n)))
	if n > 0 {
		q := roundInt(new(big.Rat).Mul(f.R, shift))
		return NewFraction(new(big.Rat).Quo(new(big.Rat).SetInt(q), shift)), nil
	}
	q := roundInt(new(big.Rat).Quo(f.R, shift))
	return NewFraction(new(big.Rat).Mul(new(big.Rat).SetInt(q), shift)), nil
}

func (f *Fraction) FromRatio(_ *starlark.Thread, r *big.Rat) (starlark.Value, error) {
	return NewFraction(new(big.Rat).Set(r)), nil
}

func (f *Fraction) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	g, ok := y.(*Fraction)
	if !ok {
		return core.CompareFallback(op, f, y)
	}
	return core.ThreeWay(op, f.R.Cmp(g.R)), nil
}

// checkRatSize refuses a rational whose numerator and denominator would
// be bigger than ints may be, and charges the memory budget for it.
func checkRatSize(th *starlark.Thread, bits int) error {
	if bits > maxFractionBits {
		return core.Errorf(pyexc.MemoryError, "fraction too large: about %d bits (the limit is %d bits)", bits, maxFractionBits)
	}
	if bits > 1<<12 && th != nil {
		return core.Alloc(th, int64(bits/8))
	}
	return nil
}

func ratBits(r *big.Rat) int { return r.Num().BitLen() + r.Denom().BitLen() }

// fractionOperand is y as a rational for Fraction arithmetic: ints and
// fractions; ok is false for others (floats are handled apart).
func fractionOperand(y starlark.Value) (*big.Rat, bool) {
	switch v := y.(type) {
	case *Fraction:
		return v.R, true
	case starlark.Int:
		return new(big.Rat).SetInt(v.BigInt()), true
	case starlark.Bool:
		return new(big.Rat).SetInt(core.BoolInt(v).BigInt()), true
	}
	return nil, false
}

// Binary is Fraction's _operator_fallbacks: exact with ints and
// fractions, float arithmetic with floats.
func (f *Fraction) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	if fl, ok := y.(starlark.Float); ok {
		x, err := f.PyFloat()
		if err != nil {
			return nil, err
		}
		a, b := starlark.Value(starlark.Float(x)), starlark.Value(fl)
		if side == starlark.Right {
			a, b = b, a
		}
		return core.BinaryOp(op)(nil, a, b)
	}
	other, ok := fractionOperand(y)
	if !ok {
		return nil, nil
	}
	a, b := f.R, other
	if side == starlark.Right {
		a, b = b, a
	}
	return ratBinary(nil, op, a, b)
}

// ratBinary is a op b for two rationals, as Fraction computes it.
func ratBinary(th *starlark.Thread, op syntax.Token, a, b *big.Rat) (starlark.Value, error) {
	bits := ratBits(a) + ratBits(b)
	if err := checkRatSize(th, bits); err != nil {
		return nil, err
	}
	zero := func() error {
		// As _div reduces a's numerator by gcd(na, 0) before failing.
		n := new(big.Int).Set(a.Num())
		if g := new(big.Int).GCD(nil, nil, new(big.Int).Abs(n), big.NewInt(0)); g.Cmp(big.NewInt(1)) > 0 {
			n.Quo(n, g)
		}
		return core.Errorf(pyexc.ZeroDivisionError, "Fraction(%s, 0)", n.Mul(n, b.Denom()).String())
	}
	switch op {
	case syntax.PLUS:
		return NewFraction(new(big.Rat).Add(a, b)), nil
	case syntax.MINUS:
		return NewFraction(new(big.Rat).Sub(a, b)), nil
	case syntax.STAR:
		return NewFraction(new(big.Rat).Mul(a, b)), nil
	case syntax.SLASH:
		if b.Sign() == 0 {
			return nil, zero()
		}
		return NewFraction(new(big.Rat).Quo(a, b)), nil
	case syntax.SLASHSLASH, syntax.PERCENT:
		if b.Sign() == 0 {
			if op == syntax.PERCENT {
				return nil, core.Errorf(pyexc.ZeroDivisionError, "integer modulo by zero")
			}
			return nil, core.Errorf(pyexc.ZeroDivisionError, "integer division or modulo by zero")
		}
		// (a.n * b.d) divmod (a.d * b.n), floored.
		n := new(big.Int).Mul(a.Num(), b.Denom())
		d := new(big.Int).Mul(a.Denom(), b.Num())
		q, m := floorDivMod(n, d)
		if op == syntax.SLASHSLASH {
			return starlark.MakeBigInt(q), nil
		}
		return NewFraction(new(big.Rat).SetFrac(m, new(big.Int).Mul(a.Denom(), b.Denom()))), nil
	}
	return nil, nil
}

// floorDivMod is Python's divmod of two ints.
func floorDivMod(n, d *big.Int) (*big.Int, *big.Int) {
	q, m := new(big.Int).QuoRem(n, d, new(big.Int))
	if m.Sign() != 0 && (m.Sign() < 0) != (d.Sign() < 0) {
		q.Sub(q, big.NewInt(1))
		m.Add(m, d)
	}
	return q, m
}

func (f *Fraction) Unary(op syntax.Token) (starlark.Value, error) {
	switch op {
	case syntax.MINUS:
		return NewFraction(new(big.Rat).Neg(f.R)), nil
	case syntax.PLUS:
		return f, nil
	}
	return nil, nil
}

// fractionPow is Fraction.__pow__ and __rpow__.
func fractionPow(th *starlark.Thread, a, b starlark.Value) (starlark.Value, bool, error) {
	fa, aIsF := a.(*Fraction)
	fb, bIsF := b.(*Fraction)
	if !aIsF && !bIsF {
		return nil, false, nil
	}
	if aIsF {
		switch e := core.Numeric(b).(type) {
		case starlark.Int:
			r, err := ratPow(th, fa.R, e.BigInt())
			return r, true, err
		case *Fraction:
			if e.R.IsInt() {
				r, err := ratPow(th, fa.R, e.R.Num())
				return r, true, err
			}
			x, err := fa.PyFloat()
			if err != nil {
				return nil, true, err
			}
			y, err := e.PyFloat()
			if err != nil {
				return nil, true, err
			}
			r, err := core.Pow(th, starlark.Float(x), starlark.Float(y))
			return r, true, err
		case starlark.Float:
			x, err := fa.PyFloat()
			if err != nil {
				return nil, true, err
			}
			r, err := core.Pow(th, starlark.Float(x), e)
			return r, true, err
		}
		return nil, true, core.Errorf(pyexc.TypeError, "unsupported operand type(s) for ** or pow(): 'Fraction' and '%s'", core.TypeName(b))
	}
	// int or float ** Fraction.
	switch x := core.Numeric(a).(type) {
	case starlark.Int:
		if fb.R.IsInt() && fb.R.Sign() >= 0 {
			r, err := core.Pow(th, x, starlark.MakeBigInt(fb.R.Num()))
			return r, true, err
		}
		r, _, err := fractionPow(th, NewFraction(new(big.Rat).SetInt(x.BigInt())), fb)
		return r, true, err
	case starlark.Float:
		if fb.R.IsInt() {
			r, err := core.Pow(th, x, starlark.MakeBigInt(fb.R.Num()))
			return r, true, err
		}
		y, err := fb.PyFloat()
		if err != nil {
			return nil, true, err
		}
		r, err := core.Pow(th, x, starlark.Float(y))
		return r, true, err
	}
	return nil, true, core.Errorf(pyexc.TypeError, "unsupported operand type(s) for ** or pow(): '%s' and 'Fraction'", core.TypeName(a))
}

// ratPow is a rational to an integer power.
func ratPow(th *starlark.Thread, r *big.Rat, e *big.Int) (starlark.Value, error) {
	if !e.IsInt64() {
		if r.Num().CmpAbs(r.Denom()) == 0 {
			// ±1 to any power.
			if r.Sign() < 0 && e.Bit(0) == 1 {
				return NewFraction(big.NewRat(-1, 1)), nil
			}
			return NewFraction(big.NewRat(1, 1)), nil
		}
		return nil, core.Errorf(pyexc.MemoryError, "fraction too large: the exponent %s is too big", e.String())
	}
	n := e.Int64()
	abs := n
	if abs < 0 {
		abs = -abs
	}
	bits := int64(ratBits(r)) * abs
	if bits > maxFractionBits && r.Num().CmpAbs(r.Denom()) != 0 && !(r.Sign() == 0) {
		return nil, core.Errorf(pyexc.MemoryError, "fraction too large: about %d bits (the limit is %d bits)", bits, maxFractionBits)
	}
	if r.Sign() == 0 && n < 0 {
		return nil, core.Errorf(pyexc.ZeroDivisionError, "Fraction(1, 0)")
	}
	if err := checkRatSize(th, int(min(bits, maxFractionBits))); err != nil {
		return nil, err
	}
	num := new(big.Int).Exp(r.Num(), big.NewInt(abs), nil)
	den := new(big.Int).Exp(r.Denom(), big.NewInt(abs), nil)
	if n < 0 {
		num, den = den, num
	}
	return NewFraction(new(big.Rat).SetFrac(num, den)), nil
}

func (f *Fraction) AttrNames() []string {
	return []string{"as_integer_ratio", "denominator", "limit_denominator", "numerator"}
}

func (f *Fraction) Attr(name string) (starlark.Value, error) {
	switch name {
	case "numerator":
		return starlark.MakeBigInt(new(big.Int).Set(f.R.Num())), nil
	case "denominator":
		return starlark.MakeBigInt(new(big.Int).Set(f.R.Denom())), nil
	case "as_integer_ratio":
		return core.Fn(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
				return nil, err
			}
			return starlark.Tuple{starlark.MakeBigInt(new(big.Int).Set(f.R.Num())), starlark.MakeBigInt(new(big.Int).Set(f.R.Denom()))}, nil
		}), nil
	case "limit_denominator":
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var maxDen starlark.Value = starlark.MakeInt(1000000)
			if err := starlark.UnpackArgs(name, args, kwargs, "max_denominator?", &maxDen); err != nil {
				return nil, err
			}
			md, err := core.Index(maxDen)
			if err != nil {
				return nil, err
			}
			return limitDenominator(th, f.R, md.BigInt())
		}), nil
	}
	return nil, core.Errorf(pyexc.AttributeError, "'Fraction' object has no attribute '%s'", name)
}

// limitDenominator is Fraction.limit_denominator: the closest fraction
// with a denominator at most maxDen, by continued fractions.
func limitDenominator(th *starlark.Thread, r *big.Rat, maxDen *big.Int) (starlark.Value, error) {
	one := big.NewInt(1)
	if maxDen.Cmp(one) < 0 {
		return nil, core.Errorf(pyexc.ValueError, "max_denominator should be at least 1")
	}
	if r.Denom().Cmp(maxDen) <= 0 {
		return NewFraction(new(big.Rat).Set(r)), nil
	}
	p0, q0, p1, q1 := big.NewInt(0), big.NewInt(1), big.NewInt(1), big.NewInt(0)
	n, d := new(big.Int).Set(r.Num()), new(big.Int).Set(r.Denom())
	for i := 0; ; i++ {
		// One step per partial quotient: hundreds of thousands for a
		// big fraction, each a division.
		if i%64 == 63 {
			if err := core.Interrupted(th); err != nil {
				return nil, err
			}
		}
		a, _ := floorDivMod(n, d)
		q2 := new(big.Int).Add(q0, new(big.Int).Mul(a, q1))
		if q2.Cmp(maxDen) > 0 {
			break
		}
		p0, q0, p1, q1 = p1, q1, new(big.Int).Add(p0, new(big.Int).Mul(a, p1)), q2
		n, d = d, new(big.Int).Sub(n, new(big.Int).Mul(a, d))
	}
	k, _ := floorDivMod(new(big.Int).Sub(maxDen, q0), q1)
	bound1 := new(big.Rat).SetFrac(new(big.Int).Add(p0, new(big.Int).Mul(k, p1)), new(big.Int).Add(q0, new(big.Int).Mul(k, q1)))
	bound2 := new(big.Rat).SetFrac(p1, q1)
	d1 := new(big.Rat).Abs(new(big.Rat).Sub(bound2, r))
	d2 := new(big.Rat).Abs(new(big.Rat).Sub(bound1, r))
	if d1.Cmp(d2) <= 0 {
		return NewFraction(bound2), nil
	}
	return NewFraction(bound1), nil
}

// parseFraction reads Fraction's string forms: "3/4", " -1.5e3 ",
// "1_000", with CPython's error.
func parseFraction(s string) (*big.Rat, error) {
	bad := core.Errorf(pyexc.ValueError, "Invalid literal for Fraction: %s", core.QuoteString(s))
	t := strings.TrimFunc(s, core.IsPySpace)
	i := 0
	neg := false
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		neg = t[i] == '-'
		i++
	}
	// digits reads \d+(_\d+)*, returning it without underscores.
	digits := func() (string, bool) {
		start := i
		var b strings.Builder
		for i < len(t) {
			switch {
			case core.IsDigit(t[i]):
				b.WriteByte(t[i])
				i++
			case t[i] == '_' && i > start && i+1 < len(t) && core.IsDigit(t[i+1]) && core.IsDigit(t[i-1]):
				i++
			default:
				return b.String(), b.Len() > 0
			}
		}
		return b.String(), b.Len() > 0
	}
	if !(i < len(t) && core.IsDigit(t[i]) || i+1 < len(t) && t[i] == '.' && core.IsDigit(t[i+1])) {
		return nil, bad
	}
	numStr, _ := digits()
	num, _ := new(big.Int).SetString("0"+numStr, 10)
	den := big.NewInt(1)
	if i < len(t) && t[i] == '/' {
		i++
		ds, ok := digits()
		if !ok || i != len(t) {
			return nil, bad
		}
		den.SetString(ds, 10)
		if den.Sign() == 0 {
			return nil, core.Errorf(pyexc.ZeroDivisionError, "Fraction(%s, 0)", signed(num, neg))
		}
	} else {
		if i < len(t) && t[i] == '.' {
			i++
			// CPython 3.11's pattern reads d* (the letter) before \d+ here:
			// "1.d" matches, and int('d') fails.
			if j := i; j < len(t) && (t[j] == 'd' || t[j] == 'D') {
				for j < len(t) && (t[j] == 'd' || t[j] == 'D') {
					j++
				}
				if rest := t[j:]; rest == "" || (rest[0] == 'e' || rest[0] == 'E') && validFracExp(rest[1:]) {
					return nil, core.Errorf(pyexc.ValueError, "invalid literal for int() with base 10: %s", core.QuoteString(t[i:j]))
				}
			}
			if fs, ok := digits(); ok {
				if err := checkRatSize(nil, len(fs)*4); err != nil {
					return nil, err
				}
				scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(fs))), nil)
				frac, _ := new(big.Int).SetString(fs, 10)
				num.Mul(num, scale).Add(num, frac)
				den.Mul(den, scale)
			}
		}
		if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
			i++
			eneg := false
			if i < len(t) && (t[i] == '+' || t[i] == '-') {
				eneg = t[i] == '-'
				i++
			}
			es, ok := digits()
			if !ok {
				return nil, bad
			}
			e, _ := new(big.Int).SetString(es, 10)
			if !e.IsInt64() || e.Int64() > maxFractionBits/3 {
				return nil, core.Errorf(pyexc.MemoryError, "fraction too large: exponent %s", es)
			}
			p := new(big.Int).Exp(big.NewInt(10), e, nil)
			if eneg {
				den.Mul(den, p)
			} else {
				num.Mul(num, p)
			}
		}
		if i != len(t) {
			return nil, bad
		}
	}
	if neg {
		num.Neg(num)
	}
	return new(big.Rat).SetFrac(num, den), nil
}

// validFracExp reports [-+]?\d+(_\d+)* filling s.
func validFracExp(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" || !core.IsDigit(s[0]) || !core.IsDigit(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !core.IsDigit(s[i]) && !(s[i] == '_' && core.IsDigit(s[i-1]) && core.IsDigit(s[i+1])) {
			return false
		}
	}
	return true
}

func signed(n *big.Int, neg bool) string {
	if neg && n.Sign() != 0 {
		return "-" + n.String()
	}
	return n.String()
}

// floatRatio is float.as_integer_ratio, with its errors.
func floatRatio(f float64) (*big.Rat, error) {
	switch {
	case math.IsNaN(f):
		return nil, core.Errorf(pyexc.ValueError, "cannot convert NaN to integer ratio")
	case math.IsInf(f, 0):
		return nil, core.Errorf(pyexc.OverflowError, "cannot convert Infinity to integer ratio")
	}
	return new(big.Rat).SetFloat64(f), nil
}

// rationalArg is a value Fraction accepts as a Rational: an int, a bool
// or a Fraction.
func rationalArg(v starlark.Value) (*big.Rat, bool) { return fractionOperand(v) }

func newFractionValue(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var numerator, denominator starlark.Value = starlark.MakeInt(0), starlark.None
	if err := starlark.UnpackArgs("Fraction", args, kwargs, "numerator?", &numerator, "denominator?", &denominator); err != nil {
		return nil, err
	}
	if denominator == starlark.None {
		switch v := numerator.(type) {
		case starlark.Float:
			r, err := floatRatio(float64(v))
			if err != nil {
				return nil, err
			}
			return NewFraction(r), nil
		case starlark.String:
			r, err := parseFraction(string(v))
			if err != nil {
				return nil, err
			}
			return NewFraction(r), nil
		case core.PyNumber:
			if _, isF := v.(*Fraction); !isF {
				r, ok := v.ExactRatio()
				if !ok {
					return nil, core.DecimalRatioError(v)
				}
				return NewFraction(new(big.Rat).Set(r)), nil
			}
		}
		if r, ok := rationalArg(numerator); ok {
			return NewFraction(new(big.Rat).Set(r)), nil
		}
		return nil, core.Errorf(pyexc.TypeError, "argument should be a string or a Rational instance")
	}
	n, ok1 := rationalArg(numerator)
	d, ok2 := rationalArg(denominator)
	if !ok1 || !ok2 {
		return nil, core.Errorf(pyexc.TypeError, "both arguments should be Rational instances")
	}
	if d.Sign() == 0 {
		return nil, core.Errorf(pyexc.ZeroDivisionError, "Fraction(%s, 0)", new(big.Int).Mul(n.Num(), d.Denom()).String())
	}
	if err := checkRatSize(th, ratBits(n)+ratBits(d)); err != nil {
		return nil, err
	}
	return NewFraction(new(big.Rat).Quo(n, d)), nil
}

func members() starlark.StringDict {
	return starlark.StringDict{"Fraction": typeFraction}
}

func init() {
	typeFraction.New = newFractionValue
	typeFraction.Attrs = map[string]starlark.Value{
		"from_float": core.Fn("from_float", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("from_float", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			switch v := x.(type) {
			case starlark.Int, starlark.Bool:
				n, _ := core.Int(v)
				return NewFraction(new(big.Rat).SetInt(n.BigInt())), nil
			case starlark.Float:
				r, err := floatRatio(float64(v))
				if err != nil {
					return nil, err
				}
				return NewFraction(r), nil
			}
			return nil, core.Errorf(pyexc.TypeError, "Fraction.from_float() only takes floats, not %s (%s)", core.Repr(x), core.TypeName(x))
		}),
		"from_decimal": core.Fn("from_decimal", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("from_decimal", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			switch v := x.(type) {
			case starlark.Int, starlark.Bool:
				n, _ := core.Int(v)
				return NewFraction(new(big.Rat).SetInt(n.BigInt())), nil
			case core.PyNumber:
				if core.TypeName(v) == "Decimal" {
					r, ok := v.ExactRatio()
					if !ok {
						return nil, core.DecimalRatioError(v)
					}
					return NewFraction(new(big.Rat).Set(r)), nil
				}
			}
			return nil, core.Errorf(pyexc.TypeError, "Fraction.from_decimal() only takes Decimals, not %s (%s)", core.Repr(x), core.TypeName(x))
		}),
	}
}

// NumberPow is a ** b when a or b is a Fraction.
func (*Fraction) NumberPow(th *starlark.Thread, a, b starlark.Value) (starlark.Value, bool, error) {
	return fractionPow(th, a, b)
}

// Module returns a new fractions module.
func Module() *core.PyModule { return core.NewModule("fractions", members()) }
