package core

import "math"

// FloatPow is x ** y for floats as CPython computes it with the C
// library's pow, which is correctly rounded in all but vanishingly rare
// cases (8 ** (1/3) is 2.0). Go's math.Pow is not: it is off by one unit
// in the last place often enough to show (8 ** (1/3) is
// 1.9999999999999998). The value is computed as exp(y * log(x)) in
// double-double arithmetic (about 106 bits), then rounded once; the
// special values (zeros, infinities, NaN, negative bases) are math.Pow's,
// which follows C99 as the C library does.
func FloatPow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case y == 1:
		return x
	case y == 2:
		return x * x
	case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0:
		return math.Pow(x, y)
	}
	neg := false
	if x < 0 {
		// A negative base has a real power only for an integer exponent.
		if y != math.Trunc(y) {
			return math.NaN()
		}
		neg = math.Mod(y, 2) != 0
		x = -x
	}
	if y == 0.5 {
		return signed(math.Sqrt(x), neg)
	}
	lh, ll := logDD(x)
	// t = y * log(x) in double-double.
	th, tl := twoProd(y, lh)
	tl += y * ll
	th, tl = fastTwoSum(th, tl)
	switch {
	case th > 710:
		return signed(math.Inf(1), neg)
	case th < -746:
		return signed(0, neg)
	}
	return signed(expDD(th, tl), neg)
}

func signed(v float64, neg bool) float64 {
	if neg {
		return -v
	}
	return v
}

// twoSum is a + b exactly as s + e.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// fastTwoSum is twoSum for |a| >= |b|.
func fastTwoSum(a, b float64) (s, e float64) {
	s = a + b
	e = b - (s - a)
	return s, e
}

// twoProd is a * b exactly as p + e.
func twoProd(a, b float64) (p, e float64) {
	p = a * b
	e = math.FMA(a, b, -p)
	return p, e
}

// ddAdd is (ah, al) + (bh, bl).
func ddAdd(ah, al, bh, bl float64) (float64, float64) {
	s, e := twoSum(ah, bh)
	t, f := twoSum(al, bl)
	e += t
	s, e = fastTwoSum(s, e)
	e += f
	return fastTwoSum(s, e)
}

// ddMul is (ah, al) * (bh, bl).
func ddMul(ah, al, bh, bl float64) (float64, float64) {
	p, e := twoProd(ah, bh)
	e += ah*bl + al*bh
	return fastTwoSum(p, e)
}

// ln2 in double-double.
const (
	ln2Hi = 6.93147180559945286227e-01
	ln2Lo = 2.31904681384629955842e-17
)

// logDD is log(x) for a finite x > 0 in double-double: math.Log's value
// refined by one Newton step, l + x*exp(-l) - 1, which doubles its
// precision.
func logDD(x float64) (float64, float64) {
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	l := math.Log(m)
	// c = m * exp(-l) - 1, tiny, in double-double.
	eh, el, k := expDDParts(-l, 0)
	eh, el = math.Ldexp(eh, k), math.Ldexp(el, k)
	ph, pl := ddMul(m, 0, eh, el)
	ch, cl := ddAdd(ph, pl, -1, 0)
	lh, ll := ddAdd(l, 0, ch, cl)
	// + e * ln2
	kh, kl := twoProd(float64(e), ln2Hi)
	kl += float64(e) * ln2Lo
	return ddAdd(lh, ll, kh, kl)
}

// expDD is exp(h + l) rounded to a float64, for |h| <= 746: h + l =
// k*ln2 + r, exp(r) = (1 + s) from a Taylor series of expm1(r / 2**10)
// squared ten times as s = 2s + s*s, then scaled by 2**k.
func expDD(h, l float64) float64 {
	rh, rl, k := expDDParts(h, l)
	if k < -1021 {
		// A subnormal result: scale the parts before rounding their sum
		// to the bits that are left.
		return math.Ldexp(rh, k) + math.Ldexp(rl, k)
	}
	return math.Ldexp(rh+rl, k)
}

// expDDParts is exp(h + l) / 2**k in double-double, and k = round(h /
// ln2).
func expDDParts(h, l float64) (float64, float64, int) {
	k := math.Round(h / ln2Hi)
	// r = (h + l) - k*ln2
	ph, pl := twoProd(k, ln2Hi)
	pl += k * ln2Lo
	rh, rl := ddAdd(h, l, -ph, -pl)
	const squarings = 10
	rh, rl = rh/(1<<squarings), rl/(1<<squarings)
	// s = expm1(r) = r + r^2/2! + ... + r^9/9!
	sh, sl := 0.0, 0.0
	th, tl := 1.0, 0.0 // r^n / n!
	for n := 1; n <= 9; n++ {
		th, tl = ddMul(th, tl, rh, rl)
		th, tl = ddDivFloat(th, tl, float64(n))
		sh, sl = ddAdd(sh, sl, th, tl)
	}
	for range squarings {
		qh, ql := ddMul(sh, sl, sh, sl)
		sh, sl = ddAdd(2*sh, 2*sl, qh, ql)
	}
	eh, el := ddAdd(1, 0, sh, sl)
	return eh, el, int(k)
}

// ddDivFloat is (h, l) / d.
func ddDivFloat(h, l, d float64) (float64, float64) {
	q := h / d
	r := math.FMA(-q, d, h) + l // exact remainder of the high part
	return fastTwoSum(q, r/d)
}
