package core

// Big integers under a deadline. math/big cannot be interrupted: one call
// of Exp, GCD or Sqrt on huge operands runs to its end, whatever the
// execution's deadline says, and holds the executor while it does. So
// every integer operation whose cost grows faster than the size of its
// operands is either split into steps that check the deadline between
// them (pow with a modulus) or refused before it starts when one call
// could not finish in a fraction of a second (decimal conversion beyond
// CPython's 4300 digits, gcd and isqrt of huge numbers).

import (
	"math/big"
	"math/bits"
	"strconv"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// tenToMaxDigits is 10**maxIntDigits: an integer has more than
// maxIntDigits decimal digits exactly when its absolute value is at least
// this.
var tenToMaxDigits = new(big.Int).Exp(big.NewInt(10), big.NewInt(MaxIntDigits), nil)

// maxIntDigitsBits is a bit length below which no integer reaches
// maxIntDigits digits (10**4300 has 14285 bits).
const maxIntDigitsBits = 14284

// tooManyDigits reports whether str(n) would exceed CPython's limit on
// integer string conversion. It costs a comparison, not a conversion.
func tooManyDigits(n *big.Int) bool {
	return n.BitLen() > maxIntDigitsBits && n.CmpAbs(tenToMaxDigits) >= 0
}

// errIntToStr is CPython's error for str() of an integer with more than
// maxIntDigits digits. The sandbox has no sys.set_int_max_str_digits, so
// the advice is what works here instead.
func errIntToStr() error {
	return Errorf(pyexc.ValueError, "Exceeds the limit (%d digits) for integer string conversion; "+
		"sys.set_int_max_str_digits() is not available here: print huge integers in hexadecimal (hex(n)) or work with smaller numbers",
		MaxIntDigits)
}

// ErrStrToInt is CPython's error for int() of a decimal string of more
// than maxIntDigits digits.
func ErrStrToInt(digits int) error {
	return Errorf(pyexc.ValueError, "Exceeds the limit (%d digits) for integer string conversion: value has %d digits; "+
		"sys.set_int_max_str_digits() is not available here: write huge integers in hexadecimal (int(s, 16))",
		MaxIntDigits, digits)
}

// intDecimal is str(n) with CPython's limit on decimal digits, checked
// before converting.
func intDecimal(n *big.Int) (string, error) {
	if tooManyDigits(n) {
		return "", errIntToStr()
	}
	return n.String(), nil
}

// IntString is str(v) for an int, with CPython's limit on decimal
// digits; ints of 64 bits take no big.Int.
func IntString(v starlark.Int) (string, error) {
	if i, ok := v.Int64(); ok {
		return strconv.FormatInt(i, 10), nil
	}
	return intDecimal(v.BigInt())
}

// MaxBuiltIntBits bounds integers built from text or bytes in a base that
// is a power of two (int(s, 16), int.from_bytes), which CPython does not
// limit: beyond it the operations the interpreter does without a check
// (//, %, divmod) take seconds each, out of reach of the deadline.
const MaxBuiltIntBits = 1 << 22

// checkBuiltIntBits refuses an integer of bits bits built from text or
// bytes.
func checkBuiltIntBits(bits int64) error {
	if bits > MaxBuiltIntBits {
		return Errorf(pyexc.MemoryError, "integer too large: %d bits (the limit for an integer built from text or bytes is %d bits, about %d decimal digits)",
			bits, MaxBuiltIntBits, MaxBuiltIntBits*3/10)
	}
	return nil
}

// MaxGCDBits bounds the smaller operand of a gcd (after reducing the
// larger one modulo it): math/big's GCD is quadratic and cannot be
// interrupted (a 2**20-bit gcd takes seconds).
const MaxGCDBits = 1 << 18

// BoundedGCD is gcd(|a|, |b|), refused when it could not finish quickly.
// fname names the function for the error. a and b are not modified.
func BoundedGCD(th *starlark.Thread, fname string, a, b *big.Int) (*big.Int, error) {
	x, y := new(big.Int).Abs(a), new(big.Int).Abs(b)
	if x.Cmp(y) < 0 {
		x, y = y, x
	}
	if y.Sign() == 0 {
		return x, nil
	}
	// One division (subquadratic in math/big) brings the larger operand
	// down to the size of the smaller, whose size then decides the cost.
	if x.BitLen() > y.BitLen()+64 {
		x.Mod(x, y)
		x, y = y, x
		if y.Sign() == 0 {
			return x, nil
		}
	}
	if y.BitLen() > MaxGCDBits {
		return nil, Errorf(pyexc.MemoryError, "%s() of integers of %d bits is too slow to run here (the limit is %d bits)", fname, y.BitLen(), MaxGCDBits)
	}
	if err := Interrupted(th); err != nil {
		return nil, err
	}
	return new(big.Int).GCD(nil, nil, x, y), nil
}

// MaxOperandBits bounds the operands of the subquadratic operations that
// cannot be interrupted (division, square root, pow's modulus): at this
// size one call takes tens of milliseconds.
const MaxOperandBits = 1 << 20

// checkOperandBits refuses an operand of bits bits to fname.
func checkOperandBits(fname string, bits int) error {
	if bits > MaxOperandBits {
		return Errorf(pyexc.MemoryError, "%s() of an integer of %d bits is too slow to run here (the limit is %d bits, about %d decimal digits)",
			fname, bits, MaxOperandBits, MaxOperandBits*3/10)
	}
	return nil
}

// expCheapCost is the estimated cost (machine words squared, times
// exponent bits) under which pow with a modulus runs as one call of
// big.Int.Exp: a few milliseconds at most.
const expCheapCost = 1 << 24

// expWindow is the number of exponent bits handled between two checks of
// the deadline in expMod.
const expWindow = 4

// ExpMod is x**y mod m for y >= 0 and m > 0, x already reduced modulo m
// or not. Beyond a small size it runs as left-to-right square-and-
// multiply with a fixed window of expWindow bits, and checks the deadline
// after each window, so that pow(3, 2**60000+1, 2**60000+3) (minutes of
// work in CPython as here) stops at the deadline instead of outliving it.
// The steps use math/big's Karatsuba multiplication and recursive
// division, which beat its Montgomery Exp from a few thousand bits.
func ExpMod(th *starlark.Thread, x, y, m *big.Int) (*big.Int, error) {
	if err := checkOperandBits("pow", m.BitLen()); err != nil {
		return nil, err
	}
	base := new(big.Int).Mod(x, m)
	words := int64(m.BitLen()/64 + 1)
	if words*words*int64(y.BitLen()) <= expCheapCost {
		return new(big.Int).Exp(base, y, m), nil
	}
	// table[i] = base**i mod m.
	var table [1 << expWindow]*big.Int
	table[0] = big.NewInt(1)
	q := new(big.Int)
	for i := 1; i < len(table); i++ {
		t := new(big.Int).Mul(table[i-1], base)
		q.QuoRem(t, m, t)
		table[i] = t
	}
	if err := Interrupted(th); err != nil {
		return nil, err
	}
	r := big.NewInt(1)
	top := (y.BitLen() + expWindow - 1) / expWindow * expWindow
	for i := top - expWindow; i >= 0; i -= expWindow {
		for range expWindow {
			r.Mul(r, r)
			q.QuoRem(r, m, r)
		}
		var w uint
		for b := expWindow - 1; b >= 0; b-- {
			w = w<<1 | y.Bit(i+b)
		}
		if w != 0 {
			r.Mul(r, table[w])
			q.QuoRem(r, m, r)
		}
		if err := Interrupted(th); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Isqrt is the integer square root of n >= 0, by CPython's algorithm
// (Modules/mathmodule.c): a square root of the top bits refined as the
// precision doubles, so that the cost is a few divisions of the full size
// (big.Int.Sqrt's Newton iteration from above takes seconds on a 2**22-bit
// number, out of reach of the deadline). The deadline is checked at each
// doubling.
func Isqrt(th *starlark.Thread, n *big.Int) (*big.Int, error) {
	if n.BitLen() <= maxIntDigitsBits {
		return new(big.Int).Sqrt(n), nil
	}
	c := uint((n.BitLen() - 1) / 2)
	a := big.NewInt(1)
	var d uint
	t := new(big.Int)
	for s := bits.Len(c) - 1; s >= 0; s-- {
		if err := Interrupted(th); err != nil {
			return nil, err
		}
		// a = (a << (d - e - 1)) + (n >> (2*c - e - d + 1)) // a
		e := d
		d = c >> uint(s)
		t.Rsh(n, 2*c-e-d+1)
		t.Quo(t, a)
		a.Lsh(a, d-e-1)
		a.Add(a, t)
	}
	if t.Mul(a, a).Cmp(n) > 0 {
		a.Sub(a, big.NewInt(1))
	}
	return a, nil
}

func FloorMod(a, b int) int {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

func FloorDivInt(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func FloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
