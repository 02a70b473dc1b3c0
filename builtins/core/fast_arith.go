package core

// Integer arithmetic on the hot path: an operation on two ints that fit
// in 64 bits, whose result does too, is computed without allocating and
// without the big-integer guards, which only then bound the size (and so
// the memory and time) of a result on large operands. Float // and % are
// CPython's (float_floor_div, float_rem), not go.starlark.net's.

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// IntBitLen is the bit length of |x|; an int of 64 bits costs no
// allocation.
func IntBitLen(x starlark.Int) int {
	if v, ok := x.Int64(); ok {
		return bits.Len64(absU64(v))
	}
	return x.BigInt().BitLen()
}

func absU64(v int64) uint64 {
	if v < 0 {
		return uint64(-v) // also right for math.MinInt64
	}
	return uint64(v)
}

// mul64 is a*b and whether it fits in an int64.
func mul64(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(absU64(a), absU64(b))
	if hi != 0 {
		return 0, false
	}
	if (a < 0) != (b < 0) {
		if lo > 1<<63 {
			return 0, false
		}
		return -int64(lo), true
	}
	if lo >= 1<<63 {
		return 0, false
	}
	return int64(lo), true
}

// MulInts is x * y for two ints: without allocating on 64-bit operands
// whose product fits in 64 bits, and otherwise refused before it is
// computed when the product would exceed MaxIntBits.
func MulInts(x, y starlark.Int) (starlark.Value, error) {
	if a, ok := x.Int64(); ok {
		if b, ok := y.Int64(); ok {
			if p, ok := mul64(a, b); ok {
				return starlark.MakeInt64(p), nil
			}
		}
	}
	if bits := IntBitLen(x) + IntBitLen(y); bits > MaxIntBits {
		return nil, Errorf(pyexc.MemoryError, "integer result too large: about %d bits (the limit is %d bits)", bits, MaxIntBits)
	}
	return x.Mul(y), nil
}

// MulFast is a * b: MulInts for two ints, Mul for everything else.
func MulFast(th *starlark.Thread, a, b starlark.Value) (starlark.Value, error) {
	if x, ok := a.(starlark.Int); ok {
		if y, ok := b.(starlark.Int); ok {
			return MulInts(x, y)
		}
	}
	return Mul(th, a, b)
}

// SaMulFast is __sa_mul(a, b) with MulFast: two positional arguments are
// taken as they are, without unpacking (which allocates).
func SaMulFast(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 2 && len(kwargs) == 0 {
		return MulFast(th, args[0], args[1])
	}
	return SaMul(th, fn, args, kwargs)
}

// PowFast is a ** b: for two ints of 64 bits with a result of 64 bits and
// a non-negative exponent, computed without allocating; Pow for
// everything else.
func PowFast(th *starlark.Thread, a, b starlark.Value) (starlark.Value, error) {
	if x, ok := a.(starlark.Int); ok {
		if y, ok := b.(starlark.Int); ok {
			if base, ok := x.Int64(); ok {
				if e, ok := y.Int64(); ok && e >= 0 {
					if r, ok := pow64(base, e); ok {
						return starlark.MakeInt64(r), nil
					}
				}
			}
		}
	}
	if x, ok := a.(starlark.Float); ok {
		if y, ok := b.(starlark.Float); ok {
			return floatPowChecked(float64(x), float64(y))
		}
	}
	return Pow(th, a, b)
}

// floatPowChecked is float ** float with CPython's errors.
func floatPowChecked(fx, fy float64) (starlark.Value, error) {
	if fx == 0 && fy < 0 {
		return nil, Errorf(pyexc.ZeroDivisionError, "0.0 cannot be raised to a negative power")
	}
	if fx < 0 && fy != math.Trunc(fy) && !math.IsInf(fy, 0) {
		return nil, Errorf(pyexc.ValueError, "negative number cannot be raised to a fractional power (the result would be complex)")
	}
	r := FloatPow(fx, fy)
	if math.IsInf(r, 0) && !math.IsInf(fx, 0) && !math.IsInf(fy, 0) {
		// CPython reports libm's ERANGE as OSError does: (errno, strerror).
		e := Errorf(pyexc.OverflowError, "(34, 'Numerical result out of range')")
		e.Args = starlark.Tuple{starlark.MakeInt(34), starlark.String("Numerical result out of range")}
		return nil, e
	}
	return starlark.Float(r), nil
}

// pow64 is base**e and whether it fits in an int64.
func pow64(base, e int64) (int64, bool) {
	switch {
	case e == 0 || base == 1:
		return 1, true
	case base == 0:
		return 0, true
	case base == -1:
		if e&1 == 0 {
			return 1, true
		}
		return -1, true
	case e >= 64:
		return 0, false
	}
	r := int64(1)
	for {
		if e&1 == 1 {
			var ok bool
			if r, ok = mul64(r, base); !ok {
				return 0, false
			}
		}
		if e >>= 1; e == 0 {
			return r, true
		}
		var ok bool
		if base, ok = mul64(base, base); !ok {
			return 0, false
		}
	}
}

// SaPowFast is __sa_pow(a, b) with PowFast.
func SaPowFast(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 2 && len(kwargs) == 0 {
		return PowFast(th, args[0], args[1])
	}
	a, b, err := twoArgs(contract.HelperPow, args, kwargs)
	if err != nil {
		return nil, err
	}
	return PowFast(th, a, b)
}

// ShiftInts is x << y or x >> y (op syntax.LTLT or syntax.GTGT) with
// Python's semantics: any shift count (go.starlark.net refuses counts of
// 512 and more), a left shift bounded by MaxIntBits and charged to the
// memory budget, a right shift rounding toward minus infinity.
func ShiftInts(th *starlark.Thread, op syntax.Token, x, y starlark.Int) (starlark.Value, error) {
	if y.Sign() < 0 {
		return nil, Errorf(pyexc.ValueError, "negative shift count")
	}
	n, ok := y.Int64()
	if x.Sign() == 0 {
		return starlark.MakeInt(0), nil
	}
	if op == syntax.GTGT {
		if a, aok := x.Int64(); aok {
			if !ok || n >= 63 {
				return starlark.MakeInt64(a >> 63), nil // 0 or -1
			}
			return starlark.MakeInt64(a >> uint(n)), nil
		}
		if !ok || n >= int64(IntBitLen(x)) {
			if x.Sign() < 0 {
				return starlark.MakeInt(-1), nil
			}
			return starlark.MakeInt(0), nil
		}
		return starlark.MakeBigInt(new(big.Int).Rsh(x.BigInt(), uint(n))), nil
	}
	if a, aok := x.Int64(); aok && ok && n < 63 && bits.Len64(absU64(a))+int(n) < 63 {
		return starlark.MakeInt64(a << uint(n)), nil
	}
	if !ok || int64(IntBitLen(x))+n > MaxIntBits {
		return nil, Errorf(pyexc.MemoryError, "integer result too large: %s << %s has more than %d bits (the limit is %d bits)",
			shortInt(x), shortInt(y), MaxIntBits, MaxIntBits)
	}
	if err := Alloc(th, (int64(IntBitLen(x))+n)/8); err != nil {
		return nil, err
	}
	return starlark.MakeBigInt(new(big.Int).Lsh(x.BigInt(), uint(n))), nil
}

// shortInt is an int for an error message: its digits, or its size when
// it has many.
func shortInt(x starlark.Int) string {
	if IntBitLen(x) <= 64 {
		return x.String()
	}
	return "<int of " + starlark.MakeInt(IntBitLen(x)).String() + " bits>"
}

// FloatMod is CPython's float x % y for y != 0: the result has the sign
// of y, and a zero result is a zero of y's sign.
func FloatMod(x, y float64) float64 {
	mod := math.Mod(x, y)
	if mod != 0 {
		if (y < 0) != (mod < 0) {
			mod += y
		}
		return mod
	}
	return math.Copysign(0, y)
}

// FloatDivmod is CPython's divmod(x, y) of floats for y != 0: the floor
// of the exact quotient, corrected so that q*y + r == x as nearly as
// floats allow (1 // 0.1 is 9.0, not 10.0).
func FloatDivmod(x, y float64) (q, r float64) {
	mod := math.Mod(x, y)
	div := (x - mod) / y
	if mod != 0 {
		if (y < 0) != (mod < 0) {
			mod += y
			div -= 1
		}
	} else {
		mod = math.Copysign(0, y)
	}
	if div != 0 {
		q = math.Floor(div)
		if div-q > 0.5 {
			q += 1
		}
	} else {
		q = math.Copysign(0, x/y)
	}
	return q, mod
}

// FloatFloorDiv is CPython's float x // y for y != 0.
func FloatFloorDiv(x, y float64) float64 {
	q, _ := FloatDivmod(x, y)
	return q
}

// floatOperands gives x and y as floats when both are numbers and one
// is a float (bools count as ints); ok is false otherwise.
func floatOperands(x, y starlark.Value) (fx, fy float64, ok bool) {
	_, xf := x.(starlark.Float)
	_, yf := y.(starlark.Float)
	if !xf && !yf {
		return 0, 0, false
	}
	x, y = Numeric(x), Numeric(y)
	if !isNumber(x) || !isNumber(y) {
		return 0, 0, false
	}
	a, aok := starlark.AsFloat(x)
	b, bok := starlark.AsFloat(y)
	return a, b, aok && bok
}

// errIntTooLarge is CPython's error for an int operand of float
// arithmetic that no float can hold.
func errIntTooLarge() error {
	return Errorf(pyexc.OverflowError, "int too large to convert to float")
}

// intTooLarge reports an int (or bool) operand of float arithmetic that
// converts to an infinite float: CPython raises OverflowError for it
// rather than computing with inf.
func intTooLarge(x, y starlark.Value) bool {
	for _, v := range [2]starlark.Value{x, y} {
		if i, ok := v.(starlark.Int); ok {
			if _, small := i.Int64(); !small && math.IsInf(float64(i.Float()), 0) {
				return true
			}
		}
	}
	return false
}

// NumBinary is x op y for the operators whose results go.starlark.net
// computes differently from CPython or without a bound (*, **, //, %,
// <<, >>), with the int fast paths, and BinaryOp for the rest.
func NumBinary(th *starlark.Thread, op syntax.Token, x, y starlark.Value) (starlark.Value, error) {
	if a, ok := x.(starlark.Int); ok {
		if b, ok := y.(starlark.Int); ok {
			switch op {
			case syntax.STAR:
				return MulInts(a, b)
			case syntax.LTLT, syntax.GTGT:
				return ShiftInts(th, op, a, b)
			case syntax.SLASHSLASH, syntax.PERCENT:
				return intDivInts(op, a, b)
			}
		}
	}
	switch op {
	case syntax.STAR:
		return Mul(th, x, y)
	case syntax.LTLT, syntax.GTGT:
		a, aok := Numeric(x).(starlark.Int)
		b, bok := Numeric(y).(starlark.Int)
		if aok && bok {
			return ShiftInts(th, op, a, b)
		}
	case syntax.SLASHSLASH, syntax.PERCENT:
		if fx, fy, ok := floatOperands(x, y); ok {
			if intTooLarge(x, y) {
				return nil, errIntTooLarge()
			}
			if fy == 0 {
				if op == syntax.PERCENT {
					return nil, Errorf(pyexc.ZeroDivisionError, "float modulo")
				}
				return nil, Errorf(pyexc.ZeroDivisionError, "float floor division by zero")
			}
			if op == syntax.PERCENT {
				return starlark.Float(FloatMod(fx, fy)), nil
			}
			return starlark.Float(FloatFloorDiv(fx, fy)), nil
		}
	}
	return BinaryOp(op)(th, x, y)
}

// DivGuard is the value a front end may bind to the helpers of // and %
// on numbers: guard[x][y] is x // y (or x % y when Mod), with CPython's
// float semantics (1 // 0.1 is 9.0, -6.0 % 3.0 is 0.0, which
// go.starlark.net computes as 10.0 and -0.0) and its errors. Like the plus
// guard it is an operator rather than a call: an int on the left is
// wrapped without allocating, and two ints of 64 bits are divided
// without allocating either.
type DivGuard struct {
	Box *ThreadBox // the executor's: where the guard finds the thread
	Mod bool       // % rather than //
}

func (g *DivGuard) String() string        { return "<division guard>" }
func (g *DivGuard) Type() string          { return "division_guard" }
func (g *DivGuard) Freeze()               {}
func (g *DivGuard) Truth() starlark.Bool  { return true }
func (g *DivGuard) Hash() (uint32, error) { return uint32(UintptrOf(g)), nil }

// Get wraps the left operand.
func (g *DivGuard) Get(x starlark.Value) (starlark.Value, bool, error) {
	if i, ok := x.(starlark.Int); ok {
		if g.Mod {
			return remInt(i), true, nil
		}
		return fdivInt(i), true, nil
	}
	return &divOperand{x: x, g: g}, true, nil
}

func (g *DivGuard) op() syntax.Token {
	if g.Mod {
		return syntax.PERCENT
	}
	return syntax.SLASHSLASH
}

// fdivInt and remInt are an int on the left of a guarded // or %. They
// have starlark.Int's representation, so wrapping does not allocate.
type (
	fdivInt starlark.Int
	remInt  starlark.Int
)

func (p fdivInt) String() string        { return starlark.Int(p).String() }
func (p fdivInt) Type() string          { return "int" }
func (p fdivInt) Freeze()               {}
func (p fdivInt) Truth() starlark.Bool  { return starlark.Int(p).Truth() }
func (p fdivInt) Hash() (uint32, error) { return starlark.Int(p).Hash() }

func (p fdivInt) Get(y starlark.Value) (starlark.Value, bool, error) {
	z, err := intDivOp(syntax.SLASHSLASH, starlark.Int(p), y)
	return z, true, err
}

func (p remInt) String() string        { return starlark.Int(p).String() }
func (p remInt) Type() string          { return "int" }
func (p remInt) Freeze()               {}
func (p remInt) Truth() starlark.Bool  { return starlark.Int(p).Truth() }
func (p remInt) Hash() (uint32, error) { return starlark.Int(p).Hash() }

func (p remInt) Get(y starlark.Value) (starlark.Value, bool, error) {
	z, err := intDivOp(syntax.PERCENT, starlark.Int(p), y)
	return z, true, err
}

// intDivOp is x // y or x % y for an int x. An int's operations need no
// thread: the results are no larger than the operands, and a
// user-defined reflected operator finds the execution's thread through
// its class.
func intDivOp(op syntax.Token, x starlark.Int, y starlark.Value) (starlark.Value, error) {
	if b, ok := y.(starlark.Int); ok {
		return intDivInts(op, x, b)
	}
	return NumBinary(nil, op, x, y)
}

// intDivInts is x // y or x % y for two ints, with CPython's errors.
func intDivInts(op syntax.Token, x, y starlark.Int) (starlark.Value, error) {
	if y.Sign() == 0 {
		if op == syntax.PERCENT {
			return nil, Errorf(pyexc.ZeroDivisionError, "integer modulo by zero")
		}
		return nil, Errorf(pyexc.ZeroDivisionError, "integer division or modulo by zero")
	}
	if op == syntax.PERCENT {
		return x.Mod(y), nil
	}
	return x.Div(y), nil
}

// divOperand is any other value on the left of a guarded // or %.
type divOperand struct {
	x starlark.Value
	g *DivGuard
}

func (p *divOperand) String() string       { return p.x.String() }
func (p *divOperand) Type() string         { return p.x.Type() }
func (p *divOperand) Freeze()              {}
func (p *divOperand) Truth() starlark.Bool { return p.x.Truth() }
func (p *divOperand) Hash() (uint32, error) {
	return 0, Errorf(pyexc.TypeError, "unhashable type: '%s'", p.x.Type())
}

func (p *divOperand) Get(y starlark.Value) (starlark.Value, bool, error) {
	th := p.g.Box.current()
	if s, ok := p.x.(starlark.String); ok && p.g.Mod {
		// A str on the left formats, as Python's printf-style %.
		out, err := percentFormat(th, string(s), y)
		if err != nil {
			return nil, true, err
		}
		return starlark.String(out), true, nil
	}
	z, err := NumBinary(th, p.g.op(), p.x, y)
	if err != nil {
		if _, ok := err.(*Error); !ok {
			sym := "//"
			if p.g.Mod {
				sym = "%"
			}
			err = BinaryError(sym, p.x, y, err)
		}
	}
	return z, true, err
}

// NumMulGuard is the value a front end may bind to the helper of a
// product of two operands it has proven numbers (ints or floats, never
// bools): guard[x][y] is x * y. Neither can be a sequence, so nothing is
// charged, and only an int product needs its size bounded (MulInts). An
// operator rather than a call, like the plus guard: an int on the left
// is wrapped without allocating, and two ints of 64 bits multiply
// without allocating either.
type NumMulGuard struct {
	Box *ThreadBox // the executor's: where the guard finds the thread
}

func (g *NumMulGuard) String() string        { return "<product guard>" }
func (g *NumMulGuard) Type() string          { return "product_guard" }
func (g *NumMulGuard) Freeze()               {}
func (g *NumMulGuard) Truth() starlark.Bool  { return true }
func (g *NumMulGuard) Hash() (uint32, error) { return uint32(UintptrOf(g)), nil }

// Get wraps the left operand.
func (g *NumMulGuard) Get(x starlark.Value) (starlark.Value, bool, error) {
	if i, ok := x.(starlark.Int); ok {
		return mulInt(i), true, nil
	}
	return &mulOperand{x: x, g: g}, true, nil
}

// mulInt is an int on the left of a guarded product, with starlark.Int's
// representation.
type mulInt starlark.Int

func (p mulInt) String() string        { return starlark.Int(p).String() }
func (p mulInt) Type() string          { return "int" }
func (p mulInt) Freeze()               {}
func (p mulInt) Truth() starlark.Bool  { return starlark.Int(p).Truth() }
func (p mulInt) Hash() (uint32, error) { return starlark.Int(p).Hash() }

// Get is the int times y.
func (p mulInt) Get(y starlark.Value) (starlark.Value, bool, error) {
	x := starlark.Int(p)
	switch b := y.(type) {
	case starlark.Int:
		z, err := MulInts(x, b)
		return z, true, err
	case starlark.Float:
		z, err := starlark.Binary(syntax.STAR, x, b)
		return z, true, err
	}
	// Not a number after all (the front end proved otherwise): a
	// repeat without a thread to charge is bounded as outside an
	// execution.
	if n := repeatSize(x, y); n > scratchMemory {
		return nil, true, Errorf(pyexc.MemoryError, "allocating %s outside an execution refused", FormatBytes(n))
	}
	z, err := Mul(nil, x, y)
	return z, true, err
}

// repeatSize is about how many bytes n * seq takes, 0 when seq is not a
// sequence.
func repeatSize(n starlark.Int, seq starlark.Value) int64 {
	c, ok := n.Int64()
	if !ok {
		return 1 << 62
	}
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
	}
	if c <= 0 || unit == 0 {
		return 0
	}
	if c > (1<<62)/unit {
		return 1 << 62
	}
	return c * unit
}

// mulOperand is any other value on the left of a guarded product.
type mulOperand struct {
	x starlark.Value
	g *NumMulGuard
}

func (p *mulOperand) String() string       { return p.x.String() }
func (p *mulOperand) Type() string         { return p.x.Type() }
func (p *mulOperand) Freeze()              {}
func (p *mulOperand) Truth() starlark.Bool { return p.x.Truth() }
func (p *mulOperand) Hash() (uint32, error) {
	return 0, Errorf(pyexc.TypeError, "unhashable type: '%s'", p.x.Type())
}

// Get is x * y.
func (p *mulOperand) Get(y starlark.Value) (starlark.Value, bool, error) {
	if a, ok := p.x.(starlark.Float); ok {
		switch y.(type) {
		case starlark.Float, starlark.Int:
			z, err := starlark.Binary(syntax.STAR, a, y)
			return z, true, err
		}
	}
	z, err := MulFast(p.g.Box.current(), p.x, y)
	return z, true, err
}
