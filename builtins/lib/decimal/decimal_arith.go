package decimal

import (
	"math"
	"math/big"
	"strings"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// The arithmetic of decimal.Decimal: _pydecimal's algorithms for the
// specification's operations, each result fitted to the context by fix.

// fix is _pydecimal's _fix: d rounded to the context's precision and
// exponent limits, with the signals that raises.
func (d *Decimal) fix() (*Decimal, error) {
	c := d.ctx
	if d.isNaN() {
		if d.coef.Sign() != 0 && d.digits() > c.prec-c.clamp {
			// Decapitate the payload.
			s := d.coef.String()
			p, _ := new(big.Int).SetString(strings.TrimLeft(s[len(s)-(c.prec-c.clamp):], "0")+"0", 10)
			p.Quo(p, big.NewInt(10))
			return &Decimal{ctx: c, sign: d.sign, coef: p, kind: d.kind}, nil
		}
		return d, nil
	}
	if d.kind == 'F' {
		return d, nil
	}
	etiny, etop := c.etiny(), c.etop()
	if d.coef.Sign() == 0 {
		expMax := c.emax
		if c.clamp == 1 {
			expMax = etop
		}
		newExp := min(max(d.exp, etiny), expMax)
		if newExp != d.exp {
			if err := c.raise("Clamped"); err != nil {
				return nil, err
			}
			return d.derive(d.sign, new(big.Int), newExp), nil
		}
		return d, nil
	}
	n := d.digits()
	expMin := n + d.exp - c.prec
	if expMin > etop {
		return c.overflow(d)
	}
	subnormal := expMin < etiny
	if subnormal {
		expMin = etiny
	}
	if d.exp < expMin {
		keep := n + d.exp - expMin
		coef, sign := d.coef, d.sign
		if keep < 0 {
			// Far below: as 1 in the digit below the last kept one.
			coef, keep = big.NewInt(1), 0
			n = 1
		}
		q, changed := roundCoef(coef, n-keep, c.rounding, sign)
		if changed > 0 && decDigits(q) > c.prec {
			q.Quo(q, big.NewInt(10))
			expMin++
		}
		var ans *Decimal
		if expMin > etop {
			return c.overflow(d)
		}
		ans = d.derive(sign, q, expMin)
		inexact := changed != 0
		if inexact && subnormal {
			if err := c.raise("Underflow"); err != nil {
				return nil, err
			}
		}
		if subnormal {
			if err := c.raise("Subnormal"); err != nil {
				return nil, err
			}
		}
		if inexact {
			if err := c.raise("Inexact"); err != nil {
				return nil, err
			}
		}
		if err := c.raise("Rounded"); err != nil {
			return nil, err
		}
		if ans.coef.Sign() == 0 {
			if err := c.raise("Clamped"); err != nil {
				return nil, err
			}
		}
		return ans, nil
	}
	if subnormal {
		if err := c.raise("Subnormal"); err != nil {
			return nil, err
		}
	}
	if c.clamp == 1 && d.exp > etop {
		if err := c.raise("Clamped"); err != nil {
			return nil, err
		}
		return d.derive(d.sign, new(big.Int).Mul(d.coef, core.Pow10(d.exp-etop)), etop), nil
	}
	return d, nil
}

// overflow is the result of an overflow: Overflow raised when trapped,
// else infinity or the largest number, as the rounding says.
func (c *decContext) overflow(d *Decimal) (*Decimal, error) {
	if err := c.raise("Overflow"); err != nil {
		return nil, err
	}
	if err := c.raise("Inexact"); err != nil {
		return nil, err
	}
	if err := c.raise("Rounded"); err != nil {
		return nil, err
	}
	toInf := false
	switch c.rounding {
	case "ROUND_HALF_UP", "ROUND_HALF_EVEN", "ROUND_HALF_DOWN", "ROUND_UP":
		toInf = true
	case "ROUND_CEILING":
		toInf = d.sign == 0
	case "ROUND_FLOOR":
		toInf = d.sign == 1
	}
	if toInf {
		return d.special(d.sign, 'F'), nil
	}
	max := new(big.Int).Sub(core.Pow10(c.prec), big.NewInt(1))
	return d.derive(d.sign, max, c.emax-c.prec+1), nil
}

// roundCoef drops the last drop digits of coef with a rounding mode;
// changed is 0 when they were all zero, else 1 (and coef's magnitude
// was rounded up or down accordingly).
func roundCoef(coef *big.Int, drop int, mode string, sign int) (*big.Int, int) {
	if drop <= 0 {
		return new(big.Int).Set(coef), 0
	}
	p := core.Pow10(drop)
	q, r := new(big.Int).QuoRem(coef, p, new(big.Int))
	if r.Sign() == 0 {
		return q, 0
	}
	half := new(big.Int).Mul(big.NewInt(5), core.Pow10(drop-1))
	c := r.Cmp(half)
	up := false
	switch mode {
	case "ROUND_UP":
		up = true
	case "ROUND_DOWN":
	case "ROUND_HALF_UP":
		up = c >= 0
	case "ROUND_HALF_DOWN":
		up = c > 0
	case "ROUND_HALF_EVEN":
		up = c > 0 || c == 0 && q.Bit(0) == 1
	case "ROUND_CEILING":
		up = sign == 0
	case "ROUND_FLOOR":
		up = sign == 1
	case "ROUND_05UP":
		last := new(big.Int).Mod(q, big.NewInt(10)).Int64()
		up = last == 0 || last == 5
	}
	if up {
		q.Add(q, big.NewInt(1))
	}
	return q, 1
}

// rescale is _rescale: d with exponent exp, rounded (no context limits).
func (d *Decimal) rescale(exp int, mode string) *Decimal {
	if !d.finite() {
		return d
	}
	if d.coef.Sign() == 0 {
		return d.derive(d.sign, new(big.Int), exp)
	}
	if d.exp >= exp {
		return d.derive(d.sign, new(big.Int).Mul(d.coef, core.Pow10(d.exp-exp)), exp)
	}
	n := d.digits()
	coef, keep := d.coef, n+d.exp-exp
	if keep < 0 {
		// Far below one unit: as 1 in the digit below it.
		coef, n, keep = big.NewInt(1), 1, 0
	}
	q, _ := roundCoef(coef, n-keep, mode, d.sign)
	return d.derive(d.sign, q, exp)
}

// operand converts the other operand of an arithmetic operator: a
// Decimal, or an int; ok is false for others (the operator is then not
// supported).
func (d *Decimal) operand(y starlark.Value) (*Decimal, bool) {
	switch x := y.(type) {
	case *Decimal:
		return x, true
	case starlark.Int, starlark.Bool:
		r, _ := d.ctx.newDecimal(x)
		return r, true
	}
	return nil, false
}

// checkNaNs is _check_nans: a signaling NaN raises InvalidOperation, a
// quiet NaN operand is the result.
func (c *decContext) checkNaNs(ops ...*Decimal) (*Decimal, error) {
	for _, o := range ops {
		if o.kind == 'N' {
			if err := c.raise("InvalidOperation"); err != nil {
				return nil, err
			}
			r := *o
			r.kind = 'n'
			return r.fix()
		}
	}
	for _, o := range ops {
		if o.kind == 'n' {
			return o.fix()
		}
	}
	return nil, nil
}

func (c *decContext) invalid(d *Decimal) (*Decimal, error) {
	if err := c.raise("InvalidOperation"); err != nil {
		return nil, err
	}
	return d.special(0, 'n'), nil
}

// checkSize refuses coefficients bigger than ints may be and charges the
// budget for big ones.
func checkDecDigits(n int) error {
	if n*10/3 > core.MaxIntBits {
		return core.Errorf(pyexc.MemoryError, "decimal result too large: about %d digits", n)
	}
	return nil
}

// Add is a + b (sub flips b's sign).
func (a *Decimal) Add(b *Decimal, negate bool) (*Decimal, error) {
	c := a.ctx
	bsign := b.sign
	if negate {
		bsign ^= 1
	}
	if r, err := c.checkNaNs(a, b); r != nil || err != nil {
		return r, err
	}
	if a.kind == 'F' {
		if b.kind == 'F' && a.sign != bsign {
			return c.invalid(a)
		}
		return a, nil
	}
	if b.kind == 'F' {
		return b.derive(bsign, new(big.Int), 0).withKind('F'), nil
	}
	exp := min(a.exp, b.exp)
	negZero := c.rounding == "ROUND_FLOOR" && a.sign != bsign
	if a.coef.Sign() == 0 && b.coef.Sign() == 0 {
		sign := min(a.sign, bsign)
		if negZero {
			sign = 1
		}
		return a.derive(sign, new(big.Int), exp).fix()
	}
	if a.coef.Sign() == 0 {
		exp = max(exp, b.exp-c.prec-1)
		return b.derive(bsign, b.coef, b.exp).rescale(exp, c.rounding).fix()
	}
	if b.coef.Sign() == 0 {
		exp = max(exp, a.exp-c.prec-1)
		return a.rescale(exp, c.rounding).fix()
	}
	// _normalize: an operand far below the other's precision only
	// matters as a tiny amount.
	x, y := a, b.derive(bsign, b.coef, b.exp)
	if x.exp < y.exp {
		x, y = y, x
	}
	if limit := x.exp + min(-1, x.digits()-c.prec-2); y.digits()+y.exp-1 < limit {
		y = y.derive(y.sign, big.NewInt(1), limit)
	}
	if err := checkDecDigits(x.exp - y.exp + x.digits()); err != nil {
		return nil, err
	}
	xi := new(big.Int).Mul(x.coef, core.Pow10(x.exp-y.exp))
	yi := new(big.Int).Set(y.coef)
	if x.sign == 1 {
		xi.Neg(xi)
	}
	if y.sign == 1 {
		yi.Neg(yi)
	}
	sum := xi.Add(xi, yi)
	sign := 0
	if sum.Sign() < 0 {
		sign = 1
		sum.Neg(sum)
	} else if sum.Sign() == 0 && negZero {
		sign = 1
	}
	return a.derive(sign, sum, y.exp).fix()
}

func (d *Decimal) withKind(k byte) *Decimal { d.kind = k; return d }

func (a *Decimal) mul(b *Decimal) (*Decimal, error) {
	c := a.ctx
	sign := a.sign ^ b.sign
	if r, err := c.checkNaNs(a, b); r != nil || err != nil {
		return r, err
	}
	if a.kind == 'F' || b.kind == 'F' {
		if a.isZero() || b.isZero() {
			return c.invalid(a)
		}
		return a.special(sign, 'F'), nil
	}
	if err := checkDecDigits(a.digits() + b.digits()); err != nil {
		return nil, err
	}
	return a.derive(sign, new(big.Int).Mul(a.coef, b.coef), a.exp+b.exp).fix()
}

// divide is a / b (_pydecimal's __truediv__).
func (a *Decimal) divide(b *Decimal) (*Decimal, error) {
	c := a.ctx
	sign := a.sign ^ b.sign
	if r, err := c.checkNaNs(a, b); r != nil || err != nil {
		return r, err
	}
	if a.kind == 'F' && b.kind == 'F' {
		return c.invalid(a)
	}
	if a.kind == 'F' {
		return a.special(sign, 'F'), nil
	}
	if b.kind == 'F' {
		if err := c.raise("Clamped"); err != nil {
			return nil, err
		}
		return a.derive(sign, new(big.Int), c.etiny()).fix()
	}
	if b.coef.Sign() == 0 {
		if a.coef.Sign() == 0 {
			if err := c.raise("DivisionUndefined"); err != nil {
				return nil, err
			}
			return a.special(0, 'n'), nil
		}
		if err := c.raise("DivisionByZero"); err != nil {
			return nil, err
		}
		return a.special(sign, 'F'), nil
	}
	var coef *big.Int
	var exp int
	if a.coef.Sign() == 0 {
		exp, coef = a.exp-b.exp, new(big.Int)
	} else {
		shift := b.digits() - a.digits() + c.prec + 1
		exp = a.exp - b.exp - shift
		var rem *big.Int
		if err := checkDecDigits(a.digits() + core.Abs(shift) + b.digits()); err != nil {
			return nil, err
		}
		if shift >= 0 {
			coef, rem = new(big.Int).QuoRem(new(big.Int).Mul(a.coef, core.Pow10(shift)), b.coef, new(big.Int))
		} else {
			coef, rem = new(big.Int).QuoRem(a.coef, new(big.Int).Mul(b.coef, core.Pow10(-shift)), new(big.Int))
		}
		if rem.Sign() != 0 {
			if new(big.Int).Mod(coef, big.NewInt(5)).Sign() == 0 {
				coef.Add(coef, big.NewInt(1))
			}
		} else {
			ideal := a.exp - b.exp
			ten := big.NewInt(10)
			for exp < ideal && new(big.Int).Mod(coef, ten).Sign() == 0 {
				coef.Quo(coef, ten)
				exp++
			}
		}
	}
	return a.derive(sign, coef, exp).fix()
}

// divmodInt is _pydecimal's _divide: the integer quotient (truncated)
// and the remainder with the dividend's sign.
func (a *Decimal) divmodInt(b *Decimal) (*Decimal, *Decimal, error) {
	c := a.ctx
	sign := a.sign ^ b.sign
	ideal := min(a.exp, b.exp)
	if b.kind == 'F' {
		ideal = a.exp
	}
	expdiff := a.adjusted() - b.adjusted()
	if a.coef.Sign() == 0 || b.kind == 'F' || expdiff <= -2 {
		return a.derive(sign, new(big.Int), 0), a.rescale(ideal, c.rounding), nil
	}
	if expdiff <= c.prec {
		x, y := new(big.Int).Set(a.coef), new(big.Int).Set(b.coef)
		if a.exp >= b.exp {
			x.Mul(x, core.Pow10(a.exp-b.exp))
		} else {
			y.Mul(y, core.Pow10(b.exp-a.exp))
		}
		q, r := new(big.Int).QuoRem(x, y, new(big.Int))
		if q.Cmp(core.Pow10(c.prec)) < 0 {
			return a.derive(sign, q, 0), a.derive(a.sign, r, ideal), nil
		}
	}
	if err := c.raise("DivisionImpossible"); err != nil {
		return nil, nil, err
	}
	n := a.special(0, 'n')
	return n, n, nil
}

func (a *Decimal) floordiv(b *Decimal, wantQuo, wantRem bool) (*Decimal, *Decimal, error) {
	c := a.ctx
	if r, err := c.checkNaNs(a, b); r != nil || err != nil {
		return r, r, err
	}
	sign := a.sign ^ b.sign
	if a.kind == 'F' {
		if b.kind == 'F' {
			r, err := c.invalid(a)
			return r, r, err
		}
		r, err := c.invalid(a)
		if wantQuo && !wantRem {
			return a.special(sign, 'F'), nil, nil
		}
		return a.special(sign, 'F'), r, err
	}
	if b.coef.Sign() == 0 && b.kind == 0 {
		if a.coef.Sign() == 0 {
			if err := c.raise("DivisionUndefined"); err != nil {
				return nil, nil, err
			}
			n := a.special(0, 'n')
			return n, n, nil
		}
		if wantQuo {
			if err := c.raise("DivisionByZero"); err != nil {
				return nil, nil, err
			}
		}
		if wantRem {
			if err := c.raise("InvalidOperation"); err != nil {
				return nil, nil, err
			}
		}
		return a.special(sign, 'F'), a.special(0, 'n'), nil
	}
	q, r, err := a.divmodInt(b)
	if err != nil {
		return nil, nil, err
	}
	if r.finite() {
		if r, err = r.fix(); err != nil {
			return nil, nil, err
		}
	}
	return q, r, nil
}

// power is a ** b for an integral b, computed exactly then rounded once.
func (a *Decimal) power(b *Decimal) (*Decimal, error) {
	c := a.ctx
	if r, err := c.checkNaNs(a, b); r != nil || err != nil {
		return r, err
	}
	if !b.finite() || !a.finite() {
		return nil, core.Errorf(pyexc.NotImplementedError, "decimal: powers of or to infinities are not supported by the Starlark engine")
	}
	br, _ := b.ExactRatio()
	if !br.IsInt() {
		return nil, core.Errorf(pyexc.NotImplementedError, "decimal: non-integer powers (%s ** %s) are not supported by the Starlark engine", a.toString(false), b.toString(false))
	}
	e := br.Num()
	if a.coef.Sign() == 0 {
		switch e.Sign() {
		case 0:
			return c.invalid(a)
		case -1:
			return a.special(a.sign&int(e.Bit(0)), 'F'), nil
		}
		return a.derive(a.sign&int(e.Bit(0)), new(big.Int), 0).fix()
	}
	if !e.IsInt64() || int64(a.digits())*abs64(e.Int64()) > 100000 {
		return nil, core.Errorf(pyexc.NotImplementedError, "decimal: the exact power %s ** %s would be too large for the Starlark engine", a.toString(false), b.toString(false))
	}
	n := e.Int64()
	sign := a.sign & int(e.Bit(0))
	coef := new(big.Int).Exp(a.coef, big.NewInt(abs64(n)), nil)
	exp := int64(a.exp) * abs64(n)
	if exp > math.MaxInt32 || exp < math.MinInt32 {
		return nil, core.Errorf(pyexc.NotImplementedError, "decimal: the exponent of %s ** %s is too large for the Starlark engine", a.toString(false), b.toString(false))
	}
	r := a.derive(sign, coef, int(exp))
	if n >= 0 {
		return r.fix()
	}
	return a.derive(sign, big.NewInt(1), 0).divide(r.derive(0, r.coef, r.exp))
}

// decimalPow is a ** b when either is a Decimal (the other an int);
// ok is false otherwise.
func decimalPow(a, b starlark.Value) (starlark.Value, bool, error) {
	if d, ok := a.(*Decimal); ok {
		e, ok := d.operand(b)
		if !ok {
			return nil, true, core.Errorf(pyexc.TypeError, "unsupported operand type(s) for ** or pow(): 'decimal.Decimal' and '%s'", core.TypeName(b))
		}
		r, err := d.power(e)
		return r, true, err
	}
	if d, ok := b.(*Decimal); ok {
		base, ok := d.operand(a)
		if !ok {
			return nil, true, core.Errorf(pyexc.TypeError, "unsupported operand type(s) for ** or pow(): '%s' and 'decimal.Decimal'", core.TypeName(a))
		}
		r, err := base.power(d)
		return r, true, err
	}
	return nil, false, nil
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// Binary is Decimal's arithmetic with Decimals and ints.
func (d *Decimal) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	other, ok := d.operand(y)
	if !ok {
		return nil, nil
	}
	a, b := d, other
	if side == starlark.Right {
		a, b = other, d
	}
	switch op {
	case syntax.PLUS:
		return a.Add(b, false)
	case syntax.MINUS:
		return a.Add(b, true)
	case syntax.STAR:
		return a.mul(b)
	case syntax.SLASH:
		return a.divide(b)
	case syntax.SLASHSLASH:
		q, _, err := a.floordiv(b, true, false)
		return q, err
	case syntax.PERCENT:
		_, r, err := a.floordiv(b, false, true)
		return r, err
	}
	return nil, nil
}

func (d *Decimal) Unary(op syntax.Token) (starlark.Value, error) {
	switch op {
	case syntax.MINUS, syntax.PLUS:
		if r, err := d.ctx.checkNaNs(d); r != nil || err != nil {
			return r, err
		}
		r := *d
		if op == syntax.MINUS {
			r.sign ^= 1
		}
		if r.isZero() && d.ctx.rounding != "ROUND_FLOOR" {
			r.sign = 0
		}
		return r.fix()
	}
	return nil, nil
}

// PyAbs is abs(d): rounded to the context.
func (d *Decimal) PyAbs() (starlark.Value, error) {
	if r, err := d.ctx.checkNaNs(d); r != nil || err != nil {
		return r, err
	}
	r := *d
	r.sign = 0
	return r.fix()
}

// cmp compares two Decimals (or a Decimal with an exact rational); ok is
// false when one is a NaN.
func decCmp(a, b *Decimal) (int, bool) {
	if a.isNaN() || b.isNaN() {
		return 0, false
	}
	inf := func(d *Decimal) int {
		if d.kind != 'F' {
			return 0
		}
		if d.sign == 1 {
			return -1
		}
		return 1
	}
	if ia, ib := inf(a), inf(b); ia != 0 || ib != 0 {
		return core.ThreeSign(ia - ib), true
	}
	// By sign, then by the position of the leading digit, before any
	// exact comparison: 1e-999999 < 1 needs no 10**999999.
	sa, sb := a.signum(), b.signum()
	if sa != sb || sa == 0 {
		return core.ThreeSign(sa - sb), true
	}
	if xa, xb := a.adjusted(), b.adjusted(); xa != xb {
		return sa * core.ThreeSign(xa-xb), true
	}
	// Same leading digit position: the exponents differ by at most the
	// number of digits, so aligning the coefficients is cheap.
	ca, cb := a.coef, b.coef
	if a.exp > b.exp {
		ca = new(big.Int).Mul(ca, core.Pow10(a.exp-b.exp))
	} else if b.exp > a.exp {
		cb = new(big.Int).Mul(cb, core.Pow10(b.exp-a.exp))
	}
	return sa * ca.Cmp(cb), true
}

// signum is -1, 0 or 1 for a finite value.
func (d *Decimal) signum() int {
	switch {
	case d.coef.Sign() == 0:
		return 0
	case d.sign == 1:
		return -1
	}
	return 1
}

func (d *Decimal) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	other, ok := y.(*Decimal)
	if !ok {
		return core.CompareFallback(op, d, y)
	}
	c, ok := decCmp(d, other)
	if !ok {
		if op == syntax.EQL || op == syntax.NEQ {
			if d.kind == 'N' || other.kind == 'N' {
				if err := d.ctx.raise("InvalidOperation"); err != nil {
					return false, err
				}
			}
			return op == syntax.NEQ, nil
		}
		if err := d.ctx.raise("InvalidOperation"); err != nil {
			return false, err
		}
		return false, nil
	}
	return core.ThreeWay(op, c), nil
}

// quantize is d.quantize(exp, rounding).
func (d *Decimal) quantize(e *Decimal, rounding string) (*Decimal, error) {
	c := d.ctx
	if r, err := c.checkNaNs(d, e); r != nil || err != nil {
		return r, err
	}
	if d.kind == 'F' || e.kind == 'F' {
		if d.kind == 'F' && e.kind == 'F' {
			return d, nil
		}
		return c.invalid(d)
	}
	if !(c.etiny() <= e.exp && e.exp <= c.emax) {
		return c.invalid(d)
	}
	if d.coef.Sign() == 0 {
		return d.derive(d.sign, new(big.Int), e.exp).fix()
	}
	if d.adjusted() > c.emax || d.adjusted()-e.exp+1 > c.prec {
		return c.invalid(d)
	}
	ans := d.rescale(e.exp, rounding)
	if ans.adjusted() > c.emax || ans.digits() > c.prec {
		return c.invalid(d)
	}
	if ans.coef.Sign() != 0 && ans.adjusted() < c.emin {
		if err := c.raise("Subnormal"); err != nil {
			return nil, err
		}
	}
	if ans.exp > d.exp {
		if ans.coef.Cmp(new(big.Int).Quo(d.coef, core.Pow10(ans.exp-d.exp))) != 0 || new(big.Int).Mod(d.coef, core.Pow10(ans.exp-d.exp)).Sign() != 0 {
			if err := c.raise("Inexact"); err != nil {
				return nil, err
			}
		}
		if err := c.raise("Rounded"); err != nil {
			return nil, err
		}
	}
	return ans.fix()
}

// sqrt is _pydecimal's sqrt: correctly rounded (half even), with the
// ideal exponent exp // 2 when exact.
func (d *Decimal) sqrt() (*Decimal, error) {
	c := d.ctx
	if r, err := c.checkNaNs(d); r != nil || err != nil {
		return r, err
	}
	if d.kind == 'F' && d.sign == 0 {
		return d, nil
	}
	if d.isZero() {
		return d.derive(d.sign, new(big.Int), core.FloorDivInt(d.exp, 2)).fix()
	}
	if d.sign == 1 {
		return c.invalid(d)
	}
	prec := c.prec + 1
	e := core.FloorDivInt(d.exp, 2)
	var cf *big.Int
	var l int
	if d.exp&1 != 0 {
		cf = new(big.Int).Mul(d.coef, big.NewInt(10))
		l = d.digits()>>1 + 1
	} else {
		cf = new(big.Int).Set(d.coef)
		l = (d.digits() + 1) >> 1
	}
	shift := prec - l
	exact := true
	hundred := big.NewInt(100)
	if shift >= 0 {
		cf.Mul(cf, new(big.Int).Exp(hundred, big.NewInt(int64(shift)), nil))
	} else {
		var rem *big.Int
		cf, rem = new(big.Int).QuoRem(cf, new(big.Int).Exp(hundred, big.NewInt(int64(-shift)), nil), new(big.Int))
		exact = rem.Sign() == 0
	}
	e -= shift
	n, _ := core.Isqrt(nil, cf) // CPython's algorithm: a few divisions, not Newton from above (bigint.go)
	exact = exact && new(big.Int).Mul(n, n).Cmp(cf) == 0
	if exact {
		if shift >= 0 {
			n.Quo(n, core.Pow10(shift))
		} else {
			n.Mul(n, core.Pow10(-shift))
		}
		e += shift
	} else if new(big.Int).Mod(n, big.NewInt(5)).Sign() == 0 {
		n.Add(n, big.NewInt(1))
	}
	saved := c.rounding
	c.rounding = "ROUND_HALF_EVEN"
	r, err := d.derive(0, n, e).fix()
	c.rounding = saved
	return r, err
}

// next is next_plus (up) or next_minus: the closest representable
// neighbour of d in the context.
func (d *Decimal) next(up bool) (*Decimal, error) {
	c := d.ctx
	if r, err := c.checkNaNs(d); r != nil || err != nil {
		return r, err
	}
	if d.kind == 'F' {
		if (d.sign == 0) == up {
			return d, nil
		}
		return d.derive(d.sign, new(big.Int).Sub(core.Pow10(c.prec), big.NewInt(1)), c.etop()), nil
	}
	quiet := *c
	quiet.flags, quiet.traps = map[string]bool{}, map[string]bool{}
	quiet.rounding = "ROUND_FLOOR"
	sign := 1
	if up {
		quiet.rounding, sign = "ROUND_CEILING", 0
	}
	v := &Decimal{ctx: &quiet, sign: d.sign, coef: d.coef, exp: d.exp}
	fixed, err := v.fix()
	if err != nil {
		return nil, err
	}
	if n, _ := decCmp(fixed, v); n != 0 {
		fixed.ctx = c
		return fixed, nil
	}
	r, err := v.Add(&Decimal{ctx: &quiet, sign: sign, coef: big.NewInt(1), exp: c.etiny() - 1}, false)
	if err != nil {
		return nil, err
	}
	r.ctx = c
	return r, nil
}

// DecimalSqrtOfFrac is statistics._decimal_sqrt_of_frac: sqrt(n/m) as
// a correctly rounded Decimal.
func DecimalSqrtOfFrac(th *starlark.Thread, sample starlark.Value, r *big.Rat) (starlark.Value, error) {
	s, ok := sample.(*Decimal)
	if !ok {
		return nil, core.Errorf(pyexc.TypeError, "expected a Decimal")
	}
	if r.Sign() == 0 {
		return s.ctx.parseDecimal("0.0")
	}
	n, m := new(big.Int).Abs(r.Num()), r.Denom()
	q, err := s.derive(0, n, 0).divide(s.derive(0, new(big.Int).Set(m), 0))
	if err != nil {
		return nil, err
	}
	root, err := q.sqrt()
	if err != nil {
		return nil, err
	}
	ratio := func(d *Decimal) (*big.Int, *big.Int) { x, _ := d.ExactRatio(); return x.Num(), x.Denom() }
	sq := func(x *big.Int) *big.Int { return new(big.Int).Mul(x, x) }
	// 4*n*(d1*d2)**2 compared with m*(d1*n2 + d2*n1)**2.
	test := func(other *Decimal) int {
		nr, dr := ratio(root)
		no, do := ratio(other)
		lhs := new(big.Int).Mul(big.NewInt(4), n)
		lhs.Mul(lhs, sq(new(big.Int).Mul(dr, do)))
		rhs := new(big.Int).Add(new(big.Int).Mul(dr, no), new(big.Int).Mul(do, nr))
		rhs = new(big.Int).Mul(m, sq(rhs))
		return lhs.Cmp(rhs)
	}
	plus, err := root.next(true)
	if err != nil {
		return nil, err
	}
	if test(plus) > 0 {
		return plus, nil
	}
	minus, err := root.next(false)
	if err != nil {
		return nil, err
	}
	if test(minus) < 0 {
		return minus, nil
	}
	return root, nil
}

// NumberPow is a ** b when a or b is a Decimal.
func (*Decimal) NumberPow(_ *starlark.Thread, a, b starlark.Value) (starlark.Value, bool, error) {
	return decimalPow(a, b)
}

// NumberDivmod is divmod(a, b) when a or b is a Decimal.
func (*Decimal) NumberDivmod(a, b starlark.Value) (starlark.Value, bool, error) {
	if d, ok := a.(*Decimal); ok {
		o, ok := d.operand(b)
		if !ok {
			return nil, true, core.Errorf(pyexc.TypeError, "unsupported operand type(s) for divmod(): 'decimal.Decimal' and '%s'", core.TypeName(b))
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
			return nil, true, core.Errorf(pyexc.TypeError, "unsupported operand type(s) for divmod(): '%s' and 'decimal.Decimal'", core.TypeName(a))
		}
		q, r, err := o.floordiv(d, true, true)
		if err != nil {
			return nil, true, err
		}
		return starlark.Tuple{q, r}, true, nil
	}
	return nil, false, nil
}

// special reports an infinity's sign, or a NaN (quiet or signalling).
func (d *Decimal) SpecialValue() (inf int, nan bool) {
	switch d.kind {
	case 'F':
		return 1 - 2*d.sign, false
	case 'n', 'N':
		return 0, true
	}
	return 0, false
}

// MixedWithFloat records the FloatOperation signal in the context.
func (d *Decimal) MixedWithFloat() { d.ctx.flags["FloatOperation"] = true }
