package decimal

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// decimal: the Decimal type of the General Decimal Arithmetic
// specification as CPython 3.11's decimal module implements it (the
// algorithms of _pydecimal, the messages of the C _decimal): exact
// conversion from str, int, float and tuples; + - * / // % divmod, **
// with an integer exponent, sqrt, quantize and the other roundings in a
// context of 28 digits, ROUND_HALF_EVEN, exponents within ±999999, with
// the specification's signals, flags and traps; str, repr and format.
// What is not provided (ln, log10, exp, non-integer powers,
// localcontext) raises NotImplementedError naming it rather than
// computing something else.

// decContext is a decimal.Context. Every Decimal points at the context of
// the module instance that made it, which its operators use.
type decContext struct {
	prec       int
	rounding   string
	emin, emax int
	capitals   int
	clamp      int
	flags      map[string]bool
	traps      map[string]bool
	typ        *core.Type // this module instance's decimal.Decimal
}

// decSignals are the context's signals in CPython's order.
var decSignals = []string{"InvalidOperation", "FloatOperation", "DivisionByZero", "Overflow", "Underflow", "Subnormal", "Inexact", "Rounded", "Clamped"}

var decRoundings = []string{"ROUND_UP", "ROUND_DOWN", "ROUND_CEILING", "ROUND_FLOOR", "ROUND_HALF_UP", "ROUND_HALF_DOWN", "ROUND_HALF_EVEN", "ROUND_05UP"}

func newDecContext() *decContext {
	return &decContext{prec: 28, rounding: "ROUND_HALF_EVEN", emin: -999999, emax: 999999, capitals: 1,
		flags: map[string]bool{}, traps: map[string]bool{"InvalidOperation": true, "DivisionByZero": true, "Overflow": true}}
}

func (c *decContext) etiny() int { return c.emin - c.prec + 1 }
func (c *decContext) etop() int  { return c.emax - c.prec + 1 }

// decSignalParents are the classes of the conditions a signal is raised
// for and their signals: DivisionUndefined is an InvalidOperation.
var decConditionSignal = map[string]string{
	"ConversionSyntax": "InvalidOperation", "DivisionImpossible": "InvalidOperation",
	"DivisionUndefined": "InvalidOperation", "InvalidContext": "InvalidOperation",
}

// raise records condition (and its signal) in the flags, and returns the
// exception to raise when the signal is trapped.
func (c *decContext) raise(condition string) error {
	signal := condition
	if s, ok := decConditionSignal[condition]; ok {
		signal = s
	}
	c.flags[signal] = true
	if c.traps[signal] {
		t, _ := pyexc.ByName("decimal." + signal)
		return core.Errorf(t, "[<class 'decimal.%s'>]", condition)
	}
	return nil
}

// Decimal is a decimal.Decimal: (-1)**sign * coef * 10**exp, or an
// infinity or NaN (kind 'F', 'n' quiet, 'N' signaling; coef is a NaN's
// payload).
type Decimal struct {
	ctx  *decContext
	sign int
	coef *big.Int
	exp  int
	kind byte // 0: finite
}

var (
	_ core.Representer   = (*Decimal)(nil)
	_ starlark.HasBinary = (*Decimal)(nil)
	_ starlark.HasUnary  = (*Decimal)(nil)
	_ starlark.HasAttrs  = (*Decimal)(nil)
	_ core.PyNumber      = (*Decimal)(nil)
)

func (d *Decimal) Type() string           { return "decimal.Decimal" }
func (d *Decimal) PyType() starlark.Value { return d.ctx.typ }
func (d *Decimal) Freeze()                {}
func (d *Decimal) Truth() starlark.Bool   { return d.kind != 0 || d.coef.Sign() != 0 }
func (d *Decimal) String() string         { return d.toString(false) }

func (d *Decimal) finite() bool { return d.kind == 0 }
func (d *Decimal) isNaN() bool  { return d.kind == 'n' || d.kind == 'N' }
func (d *Decimal) isZero() bool { return d.kind == 0 && d.coef.Sign() == 0 }

// digits is the number of digits of the coefficient.
func (d *Decimal) digits() int { return decDigits(d.coef) }

func decDigits(n *big.Int) int {
	if n.Sign() == 0 {
		return 1
	}
	// Estimate from the bit length, then correct.
	k := int(float64(n.BitLen()-1)*math.Log10(2)) + 1
	p := core.Pow10(k - 1)
	if new(big.Int).Abs(n).Cmp(p) < 0 {
		return k - 1
	}
	if new(big.Int).Abs(n).Cmp(new(big.Int).Mul(p, big.NewInt(10))) >= 0 {
		return k + 1
	}
	return k
}

// adjusted is the exponent of the most significant digit.
func (d *Decimal) adjusted() int {
	if !d.finite() {
		return 0
	}
	return d.exp + d.digits() - 1
}

func (d *Decimal) derive(sign int, coef *big.Int, exp int) *Decimal {
	return &Decimal{ctx: d.ctx, sign: sign, coef: coef, exp: exp}
}

func (d *Decimal) special(sign int, kind byte) *Decimal {
	return &Decimal{ctx: d.ctx, sign: sign, coef: new(big.Int), kind: kind}
}

// toString is the specification's to-scientific-string (eng: to-
// engineering-string).
func (d *Decimal) toString(eng bool) string {
	sign := ""
	if d.sign == 1 {
		sign = "-"
	}
	switch d.kind {
	case 'F':
		return sign + "Infinity"
	case 'n', 'N':
		s := sign + "NaN"
		if d.kind == 'N' {
			s = sign + "sNaN"
		}
		if d.coef.Sign() != 0 {
			s += d.coef.String()
		}
		return s
	}
	coef := d.coef.String()
	leftdigits := d.exp + len(coef)
	var dotplace int
	switch {
	case d.exp <= 0 && leftdigits > -6:
		dotplace = leftdigits
	case !eng:
		dotplace = 1
	case coef == "0":
		dotplace = core.FloorMod(leftdigits+1, 3) - 1
	default:
		dotplace = core.FloorMod(leftdigits-1, 3) + 1
	}
	var intpart, fracpart string
	switch {
	case dotplace <= 0:
		intpart, fracpart = "0", "."+strings.Repeat("0", -dotplace)+coef
	case dotplace >= len(coef):
		intpart = coef + strings.Repeat("0", dotplace-len(coef))
	default:
		intpart, fracpart = coef[:dotplace], "."+coef[dotplace:]
	}
	exp := ""
	if leftdigits != dotplace {
		e := "E"
		if d.ctx != nil && d.ctx.capitals == 0 {
			e = "e"
		}
		exp = e + strconv.FormatInt(int64(leftdigits-dotplace), 10)
		if leftdigits-dotplace >= 0 {
			exp = e + "+" + strconv.FormatInt(int64(leftdigits-dotplace), 10)
		}
	}
	return sign + intpart + fracpart + exp
}

func (d *Decimal) PyRepr(*starlark.Thread) (string, error) {
	return "Decimal('" + d.toString(false) + "')", nil
}
func (d *Decimal) PyStr(*starlark.Thread) (string, error) { return d.toString(false), nil }

// Hash is CPython's numeric hash (equal to an equal int's, float's or
// Fraction's), folded to 32 bits.
func (d *Decimal) Hash() (uint32, error) {
	switch d.kind {
	case 'N':
		return 0, core.Errorf(pyexc.TypeError, "Cannot hash a signaling NaN value.")
	case 'n':
		return uint32(core.UintptrOf(d)), nil
	case 'F':
		return 314159, nil
	}
	h := core.RatHash(d.HashRatio())
	return uint32(h ^ h>>32), nil
}

// maxDecExp bounds the exponents of Decimals read from text, and
// maxDecDigits their digits (see newDecimal's parsing).
const (
	maxDecExp    = 1_000_000
	maxDecDigits = 200_000
)

// HashRatio is a rational with the same hash as d (a finite value):
// CPython hashes coef * 10**exp modulo 2**61 - 1, so 10**exp is reduced
// modulo it first instead of being built.
func (d *Decimal) HashRatio() *big.Rat {
	m := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 61), big.NewInt(1))
	n := new(big.Int).Set(d.coef)
	if d.sign == 1 {
		n.Neg(n)
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(core.Abs(d.exp))), m)
	if d.exp >= 0 {
		return new(big.Rat).SetInt(n.Mul(n, p))
	}
	return new(big.Rat).SetFrac(n, p)
}

// ExactRatio is as_integer_ratio for finite values.
func (d *Decimal) ExactRatio() (*big.Rat, bool) {
	if !d.finite() {
		return nil, false
	}
	n := new(big.Int).Set(d.coef)
	if d.sign == 1 {
		n.Neg(n)
	}
	if d.exp >= 0 {
		return new(big.Rat).SetInt(n.Mul(n, core.Pow10(d.exp))), true
	}
	return new(big.Rat).SetFrac(n, core.Pow10(-d.exp)), true
}

func (d *Decimal) PyFloat() (float64, error) {
	switch d.kind {
	case 'N':
		return 0, core.Errorf(pyexc.ValueError, "cannot convert signaling NaN to float")
	case 'n':
		if d.sign == 1 {
			return math.Copysign(math.NaN(), -1), nil
		}
		return math.NaN(), nil
	case 'F':
		if d.sign == 1 {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	// float(str(d)): correctly rounded.
	f, err := strconv.ParseFloat(d.toString(false), 64)
	if err != nil && !math.IsInf(f, 0) && f != 0 {
		return 0, err
	}
	return f, nil
}

func (d *Decimal) PyInt() (starlark.Int, error) {
	switch d.kind {
	case 'n', 'N':
		return starlark.Int{}, core.Errorf(pyexc.ValueError, "cannot convert NaN to integer")
	case 'F':
		return starlark.Int{}, core.Errorf(pyexc.OverflowError, "cannot convert Infinity to integer")
	}
	if d.exp > 0 && d.digits()+d.exp > core.MaxIntBits*3/10 {
		return starlark.Int{}, core.Errorf(pyexc.MemoryError, "integer result too large: %s has about %d digits", d.toString(false), d.digits()+d.exp)
	}
	var n *big.Int
	switch {
	case d.exp >= 0:
		n = new(big.Int).Mul(d.coef, core.Pow10(d.exp))
	case -d.exp >= d.digits():
		n = new(big.Int) // below 1 in magnitude
	default:
		n = new(big.Int).Quo(d.coef, core.Pow10(-d.exp))
	}
	if d.sign == 1 {
		n.Neg(n)
	}
	return starlark.MakeBigInt(n), nil
}

func (d *Decimal) FromRatio(th *starlark.Thread, r *big.Rat) (starlark.Value, error) {
	num := d.derive(0, new(big.Int).Abs(r.Num()), 0)
	if r.Sign() < 0 {
		num.sign = 1
	}
	if r.IsInt() {
		return num, nil
	}
	return num.divide(d.derive(0, new(big.Int).Set(r.Denom()), 0))
}

// newDecimal converts a value as Decimal(value) does: exactly.
func (c *decContext) newDecimal(v starlark.Value) (*Decimal, error) {
	switch x := v.(type) {
	case *Decimal:
		return &Decimal{ctx: c, sign: x.sign, coef: x.coef, exp: x.exp, kind: x.kind}, nil
	case starlark.Int, starlark.Bool:
		i, _ := core.Int(x)
		n := i.BigInt()
		d := &Decimal{ctx: c, coef: new(big.Int).Abs(n)}
		if n.Sign() < 0 {
			d.sign = 1
		}
		return d, nil
	case starlark.Float:
		f := float64(x)
		sign := 0
		if math.Signbit(f) {
			sign = 1
		}
		switch {
		case math.IsNaN(f):
			return &Decimal{ctx: c, sign: sign, coef: new(big.Int), kind: 'n'}, nil
		case math.IsInf(f, 0):
			return &Decimal{ctx: c, sign: sign, coef: new(big.Int), kind: 'F'}, nil
		}
		c.flags["FloatOperation"] = true
		r := new(big.Rat).SetFloat64(math.Abs(f))
		// num / 2**k == num * 5**k / 10**k
		den := r.Denom()
		k := den.BitLen() - 1
		coef := new(big.Int).Mul(r.Num(), new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(k)), nil))
		return &Decimal{ctx: c, sign: sign, coef: coef, exp: -k}, nil
	case starlark.String:
		return c.parseDecimal(string(x))
	case starlark.Tuple, *starlark.List:
		return c.decimalFromTuple(v)
	}
	if core.TypeName(v) == "Fraction" {
		return nil, core.Errorf(pyexc.TypeError, "conversion from Fraction to Decimal is not supported")
	}
	return nil, core.Errorf(pyexc.TypeError, "conversion from %s to Decimal is not supported", core.TypeName(v))
}

// parseDecimal reads the specification's numeric strings (with Python's
// underscores and surrounding whitespace).
func (c *decContext) parseDecimal(s string) (*Decimal, error) {
	bad := func() (*Decimal, error) {
		if err := c.raise("ConversionSyntax"); err != nil {
			return nil, err
		}
		return &Decimal{ctx: c, coef: new(big.Int), kind: 'n'}, nil
	}
	// CPython's C decimal drops every underscore.
	t := strings.ReplaceAll(strings.TrimFunc(s, core.IsPySpace), "_", "")
	d := &Decimal{ctx: c, coef: new(big.Int)}
	if t != "" && (t[0] == '+' || t[0] == '-') {
		if t[0] == '-' {
			d.sign = 1
		}
		t = t[1:]
	}
	lower := strings.ToLower(t)
	switch {
	case lower == "inf" || lower == "infinity":
		d.kind = 'F'
		return d, nil
	case strings.HasPrefix(lower, "nan") || strings.HasPrefix(lower, "snan"):
		payload := strings.TrimPrefix(strings.TrimPrefix(lower, "s"), "nan")
		d.kind = 'n'
		if strings.HasPrefix(lower, "s") {
			d.kind = 'N'
		}
		if payload != "" {
			for i := 0; i < len(payload); i++ {
				if !core.IsDigit(payload[i]) {
					return bad()
				}
			}
			d.coef.SetString(payload, 10)
		}
		return d.fix()
	}
	mant, expStr := t, ""
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		mant, expStr = t[:i], t[i+1:]
		if expStr == "" {
			return bad()
		}
	}
	intPart, fracPart := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, fracPart = mant[:i], mant[i+1:]
	}
	if intPart+fracPart == "" {
		return bad()
	}
	for _, part := range []string{intPart, fracPart} {
		for i := 0; i < len(part); i++ {
			if !core.IsDigit(part[i]) {
				return bad()
			}
		}
	}
	exp := 0
	if expStr != "" {
		e, err := strconv.ParseInt(expStr, 10, 64)
		if err != nil {
			for i, ch := range expStr {
				if !(core.IsDigit(byte(ch)) || i == 0 && (ch == '+' || ch == '-')) {
					return bad()
				}
			}
			return nil, core.Errorf(pyexc.NotImplementedError, "decimal: the exponent of %s is too large for the Starlark engine", core.QuoteString(s))
		}
		// Exact arithmetic on the value (comparisons with other
		// numbers, as_integer_ratio, Fraction(d)) builds 10**exp: past
		// CPython's default Emax it would take seconds, uninterruptible.
		if e > maxDecExp || e < -maxDecExp {
			return nil, core.Errorf(pyexc.NotImplementedError, "decimal: the exponent of %s is too large for the Starlark engine (the limit is %d)", core.QuoteString(s), maxDecExp)
		}
		exp = int(e)
	}
	// Reading decimal digits is quadratic in math/big.
	if n := len(intPart) + len(fracPart); n > maxDecDigits {
		return nil, core.Errorf(pyexc.NotImplementedError, "decimal: a number of %d digits is too long for the Starlark engine (the limit is %d)", n, maxDecDigits)
	}
	d.coef.SetString("0"+intPart+fracPart, 10)
	d.exp = exp - len(fracPart)
	return d, nil
}

// decimalFromTuple is Decimal((sign, digits, exponent)).
func (c *decContext) decimalFromTuple(v starlark.Value) (*Decimal, error) {
	items, _ := core.Collect(nil, v)
	if len(items) != 3 {
		return nil, core.Errorf(pyexc.ValueError, "argument must be a sequence of length 3")
	}
	sign, ok := items[0].(starlark.Int)
	s, _ := sign.Int64()
	if !ok || s != 0 && s != 1 {
		return nil, core.Errorf(pyexc.ValueError, "sign must be an integer with the value 0 or 1")
	}
	d := &Decimal{ctx: c, sign: int(s), coef: new(big.Int)}
	if e, ok := items[2].(starlark.String); ok {
		switch e {
		case "F":
			d.kind = 'F'
			return d, nil
		case "n", "N":
			d.kind = byte(e[0])
		default:
			return nil, core.Errorf(pyexc.ValueError, "string argument in the third position must be 'F', 'n' or 'N'")
		}
	} else {
		e, ok := items[2].(starlark.Int)
		n, ok2 := e.Int64()
		if !ok || !ok2 || n > math.MaxInt32 || n < math.MinInt32 {
			return nil, core.Errorf(pyexc.ValueError, "exponent must be an integer")
		}
		d.exp = int(n)
	}
	digits, err := core.Collect(nil, items[1])
	if err != nil {
		return nil, core.Errorf(pyexc.ValueError, "coefficient must be a tuple of digits")
	}
	var b strings.Builder
	b.WriteByte('0')
	for _, x := range digits {
		n, ok := x.(starlark.Int)
		k, _ := n.Int64()
		if !ok || k < 0 || k > 9 {
			return nil, core.Errorf(pyexc.ValueError, "coefficient must be a tuple of digits")
		}
		b.WriteByte(byte('0' + k))
	}
	d.coef.SetString(b.String(), 10)
	return d, nil
}

// roundingArg reads a rounding argument (a ROUND_* string).
func roundingArg(c *decContext, v starlark.Value) (string, error) {
	if v == nil || v == starlark.None {
		return c.rounding, nil
	}
	s, ok := v.(starlark.String)
	if ok {
		for _, r := range decRoundings {
			if string(s) == r {
				return r, nil
			}
		}
	}
	return "", core.Errorf(pyexc.TypeError, "valid values for rounding are:\n  [ROUND_CEILING, ROUND_FLOOR, ROUND_UP, ROUND_DOWN,\n   ROUND_HALF_UP, ROUND_HALF_DOWN, ROUND_HALF_EVEN,\n   ROUND_05UP]")
}

func (d *Decimal) AttrNames() []string {
	return []string{"adjusted", "as_integer_ratio", "as_tuple", "compare", "copy_abs", "copy_negate", "copy_sign",
		"imag", "is_finite", "is_infinite", "is_nan", "is_signed", "is_zero", "max", "min", "normalize",
		"quantize", "real", "sqrt", "to_eng_string", "to_integral", "to_integral_exact", "to_integral_value"}
}

func (d *Decimal) Attr(name string) (starlark.Value, error) {
	c := d.ctx
	noArgs := func(f func() (starlark.Value, error)) (starlark.Value, error) {
		return core.Fn(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var ctx starlark.Value
			if err := starlark.UnpackArgs(name, args, kwargs, "context?", &ctx); err != nil {
				return nil, err
			}
			return f()
		}), nil
	}
	other := func(f func(o *Decimal) (starlark.Value, error)) (starlark.Value, error) {
		return core.Fn(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var y, ctx starlark.Value
			if err := starlark.UnpackArgs(name, args, kwargs, "other", &y, "context?", &ctx); err != nil {
				return nil, err
			}
			o, ok := d.operand(y)
			if !ok {
				return nil, core.Errorf(pyexc.TypeError, "conversion from %s to Decimal is not supported", core.TypeName(y))
			}
			return f(o)
		}), nil
	}
	toIntegral := func(exact bool) (starlark.Value, error) {
		return core.Fn(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var rounding, ctx starlark.Value
			if err := starlark.UnpackArgs(name, args, kwargs, "rounding?", &rounding, "context?", &ctx); err != nil {
				return nil, err
			}
			mode, err := roundingArg(c, rounding)
			if err != nil {
				return nil, err
			}
			if r, err := c.checkNaNs(d); r != nil || err != nil {
				return r, err
			}
			if !d.finite() || d.exp >= 0 {
				return d, nil
			}
			r := d.rescale(0, mode)
			if exact {
				if r.coef.Cmp(new(big.Int).Quo(d.coef, core.Pow10(-d.exp))) != 0 || new(big.Int).Mod(d.coef, core.Pow10(-d.exp)).Sign() != 0 {
					if err := c.raise("Inexact"); err != nil {
						return nil, err
					}
				}
				if err := c.raise("Rounded"); err != nil {
					return nil, err
				}
			}
			return r, nil
		}), nil
	}
	switch name {
	case "real":
		return d, nil
	case "imag":
		return d.derive(0, new(big.Int), 0), nil
	case "adjusted":
		return noArgs(func() (starlark.Value, error) { return starlark.MakeInt(d.adjusted()), nil })
	case "as_integer_ratio":
		return noArgs(func() (starlark.Value, error) {
			r, ok := d.ExactRatio()
			if !ok {
				return nil, core.DecimalRatioError(d)
			}
			return starlark.Tuple{starlark.MakeBigInt(new(big.Int).Set(r.Num())), starlark.MakeBigInt(new(big.Int).Set(r.Denom()))}, nil
		})
	case "as_tuple":
		return noArgs(func() (starlark.Value, error) {
			var digits starlark.Tuple
			if d.kind == 0 || d.coef.Sign() != 0 {
				for _, ch := range d.coef.String() {
					digits = append(digits, starlark.MakeInt(int(ch-'0')))
				}
			}
			if d.kind != 0 && d.coef.Sign() == 0 && d.kind == 'F' {
				digits = starlark.Tuple{starlark.MakeInt(0)}
			}
			var exp starlark.Value = starlark.MakeInt(d.exp)
			if d.kind != 0 {
				exp = starlark.String(string(rune(d.kind)))
			}
			return decimalTuple.(*core.Type).CallInternal(nil, starlark.Tuple{starlark.MakeInt(d.sign), digits, exp}, nil)
		})
	case "copy_abs":
		return noArgs(func() (starlark.Value, error) { r := *d; r.sign = 0; return &r, nil })
	case "copy_negate":
		return noArgs(func() (starlark.Value, error) { r := *d; r.sign ^= 1; return &r, nil })
	case "copy_sign":
		return other(func(o *Decimal) (starlark.Value, error) { r := *d; r.sign = o.sign; return &r, nil })
	case "is_finite":
		return noArgs(func() (starlark.Value, error) { return starlark.Bool(d.finite()), nil })
	case "is_infinite":
		return noArgs(func() (starlark.Value, error) { return starlark.Bool(d.kind == 'F'), nil })
	case "is_nan":
		return noArgs(func() (starlark.Value, error) { return starlark.Bool(d.isNaN()), nil })
	case "is_signed":
		return noArgs(func() (starlark.Value, error) { return starlark.Bool(d.sign == 1), nil })
	case "is_zero":
		return noArgs(func() (starlark.Value, error) { return starlark.Bool(d.isZero()), nil })
	case "sqrt":
		return noArgs(func() (starlark.Value, error) { return d.sqrt() })
	case "to_eng_string":
		return noArgs(func() (starlark.Value, error) { return starlark.String(d.toString(true)), nil })
	case "normalize":
		return noArgs(func() (starlark.Value, error) {
			if r, err := c.checkNaNs(d); r != nil || err != nil {
				return r, err
			}
			r, err := d.fix()
			if err != nil || !r.finite() {
				return r, err
			}
			if r.coef.Sign() == 0 {
				return r.derive(r.sign, new(big.Int), 0), nil
			}
			coef, exp := new(big.Int).Set(r.coef), r.exp
			ten := big.NewInt(10)
			expMax := c.emax
			if c.clamp == 1 {
				expMax = c.etop()
			}
			for exp < expMax && new(big.Int).Mod(coef, ten).Sign() == 0 {
				coef.Quo(coef, ten)
				exp++
			}
			return r.derive(r.sign, coef, exp), nil
		})
	case "compare":
		return other(func(o *Decimal) (starlark.Value, error) {
			if r, err := c.checkNaNs(d, o); r != nil || err != nil {
				return r, err
			}
			n, _ := decCmp(d, o)
			r, _ := c.newDecimal(starlark.MakeInt(n))
			return r, nil
		})
	case "max", "min":
		return other(func(o *Decimal) (starlark.Value, error) {
			if d.isNaN() || o.isNaN() {
				if d.kind == 'N' || o.kind == 'N' {
					return c.checkNaNs(d, o)
				}
				if d.isNaN() {
					return o.fix()
				}
				return d.fix()
			}
			n, _ := decCmp(d, o)
			if n == 0 {
				// Equal values: the one with the larger (max) exponent.
				n = core.ThreeSign(d.exp - o.exp)
				if d.sign == 1 {
					n = -n
				}
			}
			if (name == "max") == (n >= 0) {
				return d.fix()
			}
			return o.fix()
		})
	case "quantize":
		return core.Fn(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var exp, rounding, ctx starlark.Value
			if err := starlark.UnpackArgs(name, args, kwargs, "exp", &exp, "rounding?", &rounding, "context?", &ctx); err != nil {
				return nil, err
			}
			e, ok := d.operand(exp)
			if !ok {
				return nil, core.Errorf(pyexc.TypeError, "conversion from %s to Decimal is not supported", core.TypeName(exp))
			}
			mode, err := roundingArg(c, rounding)
			if err != nil {
				return nil, err
			}
			return d.quantize(e, mode)
		}), nil
	case "to_integral", "to_integral_value":
		return toIntegral(false)
	case "to_integral_exact":
		return toIntegral(true)
	case "ln", "log10", "exp", "logb", "fma", "next_plus", "next_minus", "next_toward", "scaleb", "rotate", "shift", "logical_and", "logical_or", "logical_xor", "logical_invert", "remainder_near", "same_quantum", "compare_total", "number_class", "radix", "canonical", "is_canonical", "is_normal", "is_subnormal", "is_qnan", "is_snan", "conjugate", "compare_signal", "compare_total_mag", "copy_abs_mag", "max_mag", "min_mag":
		return nil, core.Errorf(pyexc.NotImplementedError, "decimal.Decimal.%s is not provided by the Starlark engine (it needs full Python)", name)
	}
	return nil, core.Errorf(pyexc.AttributeError, "'decimal.Decimal' object has no attribute '%s'", name)
}

// decimalTuple is decimal.DecimalTuple.
var decimalTuple = func() starlark.Value {
	t, err := core.Namedtuple(nil, nil, starlark.Tuple{starlark.String("DecimalTuple"), starlark.String("sign digits exponent")}, nil)
	if err != nil {
		panic(err)
	}
	return t
}()

// PyRound is round(d[, n]): an int with ROUND_HALF_EVEN, or d
// quantized to n places.
func (d *Decimal) PyRound(nd starlark.Value) (starlark.Value, error) {
	if nd != nil && nd != starlark.None {
		n, err := core.IndexInt(nd)
		if err != nil {
			return nil, err
		}
		e := d.derive(0, big.NewInt(1), -n)
		return d.quantize(e, d.ctx.rounding)
	}
	switch d.kind {
	case 'n', 'N':
		return nil, core.Errorf(pyexc.ValueError, "cannot round a NaN")
	case 'F':
		return nil, core.Errorf(pyexc.OverflowError, "cannot round an infinity")
	}
	if d.exp >= 0 {
		return d.PyInt()
	}
	return d.rescale(0, "ROUND_HALF_EVEN").PyInt()
}

// decContextValue is what decimal.getcontext() returns: the context's
// settings, readable and settable.
type decContextValue struct{ c *decContext }

func (v *decContextValue) Type() string         { return "decimal.Context" }
func (v *decContextValue) Freeze()              {}
func (v *decContextValue) Truth() starlark.Bool { return true }
func (v *decContextValue) Hash() (uint32, error) {
	return 0, core.Errorf(pyexc.TypeError, "unhashable type: 'decimal.Context'")
}
func (v *decContextValue) String() string {
	// libmpdec's order: InvalidOperation first, then by flag bit.
	order := []string{"InvalidOperation", "Clamped", "DivisionByZero", "Inexact", "FloatOperation", "Overflow", "Rounded", "Subnormal", "Underflow"}
	var flags, traps []string
	for _, s := range order {
		if v.c.flags[s] {
			flags = append(flags, s)
		}
		if v.c.traps[s] {
			traps = append(traps, s)
		}
	}
	return "Context(prec=" + strconv.Itoa(v.c.prec) + ", rounding=" + v.c.rounding + ", Emin=" + strconv.Itoa(v.c.emin) +
		", Emax=" + strconv.Itoa(v.c.emax) + ", capitals=" + strconv.Itoa(v.c.capitals) + ", clamp=" + strconv.Itoa(v.c.clamp) +
		", flags=[" + strings.Join(flags, ", ") + "], traps=[" + strings.Join(traps, ", ") + "])"
}

func (v *decContextValue) AttrNames() []string {
	return []string{"Emax", "Emin", "capitals", "clamp", "clear_flags", "flags", "prec", "rounding", "traps"}
}

func (v *decContextValue) Attr(name string) (starlark.Value, error) {
	c := v.c
	switch name {
	case "prec":
		return starlark.MakeInt(c.prec), nil
	case "rounding":
		return starlark.String(c.rounding), nil
	case "Emin":
		return starlark.MakeInt(c.emin), nil
	case "Emax":
		return starlark.MakeInt(c.emax), nil
	case "capitals":
		return starlark.MakeInt(c.capitals), nil
	case "clamp":
		return starlark.MakeInt(c.clamp), nil
	case "flags":
		return &decSignalDict{m: c.flags}, nil
	case "traps":
		return &decSignalDict{m: c.traps}, nil
	case "clear_flags":
		return core.Fn(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			for k := range c.flags {
				delete(c.flags, k)
			}
			return starlark.None, nil
		}), nil
	}
	return nil, core.Errorf(pyexc.AttributeError, "'decimal.Context' object has no attribute '%s'", name)
}

func (v *decContextValue) SetField(name string, x starlark.Value) error {
	c := v.c
	intVal := func(lo, hi int, msg string) (int, error) {
		n, err := core.IndexInt(x)
		if err != nil {
			return 0, err
		}
		if n < lo || n > hi {
			return 0, core.Errorf(pyexc.ValueError, "%s", msg)
		}
		return n, nil
	}
	var err error
	switch name {
	case "prec":
		n, e := intVal(1, 999999999999999999, "valid range for prec is [1, MAX_PREC]")
		if e == nil && n > 100000 {
			return core.Errorf(pyexc.NotImplementedError, "decimal: a precision above 100000 digits is not supported by the Starlark engine")
		}
		c.prec, err = n, e
	case "rounding":
		r, e := roundingArg(c, x)
		if e == nil {
			c.rounding = r
		}
		err = e
	case "Emin":
		c.emin, err = intVal(-999999999999999999, 0, "valid range for Emin is [MIN_EMIN, 0]")
	case "Emax":
		c.emax, err = intVal(0, 999999999999999999, "valid range for Emax is [0, MAX_EMAX]")
	case "capitals":
		c.capitals, err = intVal(0, 1, "valid values for capitals are 0 or 1")
	case "clamp":
		c.clamp, err = intVal(0, 1, "valid values for clamp are 0 or 1")
	default:
		return core.Errorf(pyexc.AttributeError, "'decimal.Context' object has no attribute '%s'", name)
	}
	return err
}

// decSignalDict is a context's flags or traps: signal class -> bool.
type decSignalDict struct{ m map[string]bool }

func (s *decSignalDict) Type() string         { return "dict" }
func (s *decSignalDict) Freeze()              {}
func (s *decSignalDict) Truth() starlark.Bool { return true }
func (s *decSignalDict) Hash() (uint32, error) {
	return 0, core.Errorf(pyexc.TypeError, "unhashable type: 'dict'")
}
func (s *decSignalDict) String() string {
	parts := make([]string, len(decSignals))
	for i, n := range decSignals {
		b := "False"
		if s.m[n] {
			b = "True"
		}
		parts[i] = "<class 'decimal." + n + "'>:" + b
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (s *decSignalDict) signal(k starlark.Value) (string, error) {
	if c, ok := k.(*core.Class); ok {
		for _, n := range decSignals {
			if c.PyName == n {
				return n, nil
			}
		}
	}
	return "", core.Errorf(pyexc.KeyError, "%s", core.Repr(k))
}

func (s *decSignalDict) Get(k starlark.Value) (starlark.Value, bool, error) {
	n, err := s.signal(k)
	if err != nil {
		return nil, false, err
	}
	return starlark.Bool(s.m[n]), true, nil
}

func (s *decSignalDict) SetKey(k, v starlark.Value) error {
	n, err := s.signal(k)
	if err != nil {
		return err
	}
	s.m[n] = bool(v.Truth())
	return nil
}

func members() starlark.StringDict {
	ctx := newDecContext()
	ctx.typ = &core.Type{PyName: "decimal.Decimal", Base: core.TypeObject}
	ctx.typ.New = func(_ *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var v starlark.Value = starlark.String("0")
		var c starlark.Value
		if err := starlark.UnpackArgs("Decimal", args, kwargs, "value?", &v, "context?", &c); err != nil {
			return nil, err
		}
		return ctx.newDecimal(v)
	}
	ctx.typ.Attrs = map[string]starlark.Value{
		"from_float": core.Fn("from_float", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var v starlark.Value
			if err := starlark.UnpackPositionalArgs("from_float", args, kwargs, 1, &v); err != nil {
				return nil, err
			}
			switch v.(type) {
			case starlark.Float, starlark.Int, starlark.Bool:
				had := ctx.flags["FloatOperation"]
				d, err := ctx.newDecimal(v)
				ctx.flags["FloatOperation"] = had
				return d, err
			}
			return nil, core.Errorf(pyexc.TypeError, "argument must be int or float")
		}),
	}
	m := starlark.StringDict{
		"Decimal": ctx.typ,
		"getcontext": core.Fn("getcontext", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs("getcontext", args, kwargs, 0); err != nil {
				return nil, err
			}
			return &decContextValue{c: ctx}, nil
		}),
		"localcontext": core.Fn("localcontext", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return nil, core.Errorf(pyexc.NotImplementedError, "decimal.localcontext is not provided by the Starlark engine (it needs full Python); set getcontext().prec instead")
		}),
		"MAX_PREC": starlark.MakeInt64(999999999999999999), "MAX_EMAX": starlark.MakeInt64(999999999999999999),
		"MIN_EMIN": starlark.MakeInt64(-999999999999999999), "MIN_ETINY": starlark.MakeInt64(-1999999999999999997),
	}
	for _, r := range decRoundings {
		m[r] = starlark.String(r)
	}
	return m
}

// Module returns a new decimal module.
func Module() *core.PyModule { return core.NewModule("decimal", members()) }
