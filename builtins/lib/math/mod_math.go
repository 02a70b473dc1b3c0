package math

import (
	"math"
	"math/big"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

func domainError() error { return core.Errorf(pyexc.ValueError, "math domain error") }

func MathResult(r float64, args ...float64) (starlark.Value, error) {
	if math.IsNaN(r) {
		for _, a := range args {
			if math.IsNaN(a) {
				return starlark.Float(r), nil
			}
		}
		return nil, domainError()
	}
	if math.IsInf(r, 0) {
		for _, a := range args {
			if math.IsInf(a, 0) {
				return starlark.Float(r), nil
			}
		}
		return nil, core.Errorf(pyexc.OverflowError, "math range error")
	}
	return starlark.Float(r), nil
}

func math1(name string, f func(float64) float64, domain func(float64) bool) *starlark.Builtin {
	return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &x); err != nil {
			return nil, err
		}
		a, err := core.FloatArg(x)
		if err != nil {
			return nil, err
		}
		if domain != nil && !domain(a) {
			return nil, domainError()
		}
		return MathResult(f(a), a)
	})
}

func math2(name string, f func(float64, float64) float64) *starlark.Builtin {
	return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x, y starlark.Value
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 2, &x, &y); err != nil {
			return nil, err
		}
		a, err := core.FloatArg(x)
		if err != nil {
			return nil, err
		}
		b, err := core.FloatArg(y)
		if err != nil {
			return nil, err
		}
		return MathResult(f(a, b), a, b)
	})
}

// LogOf is the natural log of an int or float as CPython's math.log
// computes it.
func LogOf(v starlark.Value) (float64, error) { return logHelper(v, logFloat) }

// logHelper is CPython's loghelper: f of a positive int or float, where
// an int too large for a float is split into a correctly rounded
// mantissa and a power of two (_PyLong_Frexp): f(m) + f(2)*e.
func logHelper(v starlark.Value, f func(float64) float64) (float64, error) {
	if x, ok := v.(starlark.Int); ok {
		b := x.BigInt()
		if b.Sign() <= 0 {
			return 0, domainError()
		}
		if fl, _ := new(big.Float).SetInt(b).Float64(); math.IsInf(fl, 0) {
			r := new(big.Float).SetPrec(53).SetMode(big.ToNearestEven).SetInt(b)
			mant := new(big.Float)
			e := r.MantExp(mant)
			m, _ := mant.Float64()
			return f(m) + f(2.0)*float64(e), nil
		}
	}
	x, err := core.FloatArg(v)
	if err != nil {
		return 0, err
	}
	if x <= 0 {
		return 0, domainError()
	}
	return f(x), nil
}

func logFn(name string, f func(float64) float64) *starlark.Builtin {
	return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &x); err != nil {
			return nil, err
		}
		r, err := logHelper(x, f)
		if err != nil {
			return nil, err
		}
		return starlark.Float(r), nil
	})
}

// smallestNormal is the least positive normal float64.
const smallestNormal = 2.2250738585072014e-308

// logFloat is math.Log, except for subnormal x: Go's assembly Log on
// amd64 does not normalize them (math.Log(1e-310) is -709.08, not
// -713.80), so those go through fdlibm's algorithm, which does.
func logFloat(x float64) float64 {
	if x > 0 && x < smallestNormal {
		return fdlibmLog(x)
	}
	return math.Log(x)
}

// log10Float is math.Log10 with subnormals handled as in logFloat.
func log10Float(x float64) float64 {
	if x > 0 && x < smallestNormal {
		return fdlibmLog(x) * (1 / math.Ln10)
	}
	return math.Log10(x)
}

// fdlibmLog is fdlibm's e_log.c (Go's portable math.log), which reduces
// its argument with Frexp and so handles subnormal numbers.
func fdlibmLog(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01
		ln2Lo = 1.90821492927058770002e-10
		l1    = 6.666666666666735130e-01
		l2    = 3.999999999940941908e-01
		l3    = 2.857142874366239149e-01
		l4    = 2.222219843214978396e-01
		l5    = 1.818357216161805012e-01
		l6    = 1.531383769920937332e-01
		l7    = 1.479819860511658591e-01
	)
	f1, ki := math.Frexp(x)
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	t1 := s2 * (l1 + s4*(l3+s4*(l5+s4*l7)))
	t2 := s4 * (l2 + s4*(l4+s4*l6))
	r := t1 + t2
	hfsq := 0.5 * f * f
	return k*ln2Hi - ((hfsq - (s*(hfsq+r) + k*ln2Lo)) - f)
}

// The cube root factors of glibc's cbrt, rounded as C rounds them.
var (
	cbrt2      = 1.2599210498948731648 // 2^(1/3)
	sqrCbrt2   = 1.5874010519681994748 // 2^(2/3)
	cbrtFactor = [5]float64{1 / sqrCbrt2, 1 / cbrt2, 1, cbrt2, sqrCbrt2}
)

// glibcCbrt is glibc's cbrt (sysdeps/ieee754/dbl-64/s_cbrt.c), which
// CPython's math.cbrt calls on Linux: not correctly rounded
// (cbrt(27.0) is 3.0000000000000004), so Go's math.Cbrt gives other
// results for about a quarter of all inputs. Every product is rounded
// on its own (float64(...)) so that no fused multiply-add changes it.
func glibcCbrt(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x + x
	}
	xm, xe := math.Frexp(math.Abs(x))
	u := 0.354895765043919860 + float64((1.50819193781584896+float64((-2.11499494167371287+float64((2.44693122563534430+float64((-1.83469277483613086+float64((0.784932344976639262-float64(0.145263899385486377*xm))*xm))*xm))*xm))*xm))*xm)
	t2 := float64(float64(u*u) * u)
	ym := float64(float64(float64(u*float64(t2+float64(2.0*xm)))/float64(float64(2.0*t2)+xm)) * cbrtFactor[2+xe%3])
	if x < 0 {
		ym = -ym
	}
	return math.Ldexp(ym, xe/3)
}

func intResult(f float64) (starlark.Value, error) { return core.FloatToInt(f) }

func rounding(name string, f func(float64) float64) *starlark.Builtin {
	return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &x); err != nil {
			return nil, err
		}
		switch v := x.(type) {
		case starlark.Int:
			return v, nil
		case starlark.Bool:
			return core.BoolInt(v), nil
		case *core.Instance:
			// math.floor, ceil and trunc ask __floor__, __ceil__ and
			// __trunc__ first; floor and ceil then fall back to float().
			r, ok, err := v.CallDunder(th, "__"+name+"__")
			if ok {
				return r, err
			}
			if name == "trunc" {
				return nil, core.Errorf(pyexc.TypeError, "type %s doesn't define __trunc__ method", core.TypeName(x))
			}
			if r, ok, err := v.CallDunder(th, "__float__"); ok {
				if err != nil {
					return nil, err
				}
				fl, isFloat := r.(starlark.Float)
				if !isFloat {
					return nil, core.Errorf(pyexc.TypeError, "%s.__float__ returned non-float (type %s)", core.TypeName(x), core.TypeName(r))
				}
				return intResult(f(float64(fl)))
			}
		case core.PyRounder:
			switch name {
			case "floor", "ceil":
				return v.PyFloorCeil(name == "ceil")
			case "trunc":
				if n, ok := x.(core.PyNumber); ok {
					return n.PyInt()
				}
			}
		}
		if _, isFloat := x.(starlark.Float); !isFloat && name == "trunc" {
			if _, isNumber := x.(core.PyNumber); !isNumber {
				return nil, core.Errorf(pyexc.TypeError, "type %s doesn't define __trunc__ method", core.TypeName(x))
			}
		}
		a, err := core.FloatArg(x)
		if err != nil {
			return nil, err
		}
		return intResult(f(a))
	})
}

func members() starlark.StringDict {
	m := starlark.StringDict{
		"pi":  starlark.Float(math.Pi),
		"e":   starlark.Float(math.E),
		"tau": starlark.Float(2 * math.Pi),
		"inf": starlark.Float(math.Inf(1)),
		"nan": starlark.Float(math.NaN()),

		"sqrt":      math1("sqrt", math.Sqrt, func(x float64) bool { return x >= 0 || math.IsNaN(x) }),
		"exp":       math1("exp", math.Exp, nil),
		"exp2":      math1("exp2", math.Exp2, nil),
		"expm1":     math1("expm1", math.Expm1, nil),
		"log2":      logFn("log2", math.Log2),
		"log10":     logFn("log10", log10Float),
		"log1p":     math1("log1p", math.Log1p, func(x float64) bool { return x > -1 || math.IsNaN(x) }),
		"sin":       math1("sin", math.Sin, func(x float64) bool { return !math.IsInf(x, 0) }),
		"cos":       math1("cos", math.Cos, func(x float64) bool { return !math.IsInf(x, 0) }),
		"tan":       math1("tan", math.Tan, func(x float64) bool { return !math.IsInf(x, 0) }),
		"asin":      math1("asin", math.Asin, func(x float64) bool { return x >= -1 && x <= 1 || math.IsNaN(x) }),
		"acos":      math1("acos", math.Acos, func(x float64) bool { return x >= -1 && x <= 1 || math.IsNaN(x) }),
		"atan":      math1("atan", math.Atan, nil),
		"sinh":      math1("sinh", math.Sinh, nil),
		"cosh":      math1("cosh", math.Cosh, nil),
		"tanh":      math1("tanh", math.Tanh, nil),
		"asinh":     math1("asinh", math.Asinh, nil),
		"acosh":     math1("acosh", math.Acosh, func(x float64) bool { return x >= 1 || math.IsNaN(x) }),
		"atanh":     math1("atanh", math.Atanh, func(x float64) bool { return x > -1 && x < 1 || math.IsNaN(x) }),
		"fabs":      math1("fabs", math.Abs, nil),
		"degrees":   math1("degrees", func(x float64) float64 { return x * 180 / math.Pi }, nil),
		"radians":   math1("radians", func(x float64) float64 { return x * math.Pi / 180 }, nil),
		"erf":       math1("erf", math.Erf, nil),
		"erfc":      math1("erfc", math.Erfc, nil),
		"gamma":     math1("gamma", lanczosGamma, func(x float64) bool { return !(x <= 0 && x == math.Trunc(x)) && !math.IsInf(x, -1) }),
		"lgamma":    math1("lgamma", lanczosLgamma, func(x float64) bool { return !(x <= 0 && x == math.Trunc(x)) || math.IsInf(x, -1) }),
		"cbrt":      math1("cbrt", glibcCbrt, nil),
		"ulp":       math1("ulp", func(x float64) float64 { x = math.Abs(x); return math.Nextafter(x, math.Inf(1)) - x }, nil),
		"atan2":     math2("atan2", math.Atan2),
		"copysign":  math2("copysign", math.Copysign),
		"nextafter": math2("nextafter", math.Nextafter),
		"remainder": math2("remainder", math.Remainder),
		"fmod": core.Fn("fmod", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x, y starlark.Value
			if err := starlark.UnpackPositionalArgs("fmod", args, kwargs, 2, &x, &y); err != nil {
				return nil, err
			}
			a, err := core.FloatArg(x)
			if err != nil {
				return nil, err
			}
			b, err := core.FloatArg(y)
			if err != nil {
				return nil, err
			}
			if math.IsNaN(a) || math.IsNaN(b) {
				return starlark.Float(math.NaN()), nil // CPython: a NaN in, a NaN out
			}
			if b == 0 || math.IsInf(a, 0) {
				return nil, domainError()
			}
			return starlark.Float(math.Mod(a, b)), nil
		}),
		"pow": core.Fn("pow", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x, y starlark.Value
			if err := starlark.UnpackPositionalArgs("pow", args, kwargs, 2, &x, &y); err != nil {
				return nil, err
			}
			a, err := core.FloatArg(x)
			if err != nil {
				return nil, err
			}
			b, err := core.FloatArg(y)
			if err != nil {
				return nil, err
			}
			// 0.0 ** -inf is inf, as in CPython; 0.0 to a finite negative
			// power is a domain error.
			if a == 0 && b < 0 && !math.IsInf(b, 0) || a < 0 && b != math.Trunc(b) && !math.IsInf(b, 0) {
				return nil, domainError()
			}
			return MathResult(core.FloatPow(a, b), a, b)
		}),
		"log": core.Fn("log", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x, base starlark.Value
			if err := starlark.UnpackPositionalArgs("log", args, kwargs, 1, &x, &base); err != nil {
				return nil, err
			}
			l, err := LogOf(x)
			if err != nil {
				return nil, err
			}
			if base == nil {
				return starlark.Float(l), nil
			}
			lb, err := LogOf(base)
			if err != nil {
				return nil, err
			}
			if lb == 0 {
				return nil, core.Errorf(pyexc.ZeroDivisionError, "float division by zero")
			}
			return starlark.Float(l / lb), nil
		}),
		"floor": rounding("floor", math.Floor),
		"ceil":  rounding("ceil", math.Ceil),
		"trunc": rounding("trunc", math.Trunc),
		"isinf": core.Fn("isinf", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("isinf", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			f, err := core.FloatArg(x)
			return starlark.Bool(math.IsInf(f, 0)), err
		}),
		"isnan": core.Fn("isnan", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("isnan", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			f, err := core.FloatArg(x)
			return starlark.Bool(math.IsNaN(f)), err
		}),
		"isfinite": core.Fn("isfinite", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("isfinite", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			f, err := core.FloatArg(x)
			return starlark.Bool(!math.IsInf(f, 0) && !math.IsNaN(f)), err
		}),
		"isclose": core.Fn("isclose", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x, y starlark.Value
			var rel, absTol starlark.Value = starlark.Float(1e-9), starlark.Float(0)
			if err := starlark.UnpackArgs("isclose", args, kwargs, "a", &x, "b", &y, "rel_tol?", &rel, "abs_tol?", &absTol); err != nil {
				return nil, err
			}
			a, err := core.FloatArg(x)
			if err != nil {
				return nil, err
			}
			b, err := core.FloatArg(y)
			if err != nil {
				return nil, err
			}
			rt, _ := core.FloatArg(rel)
			at, _ := core.FloatArg(absTol)
			if rt < 0 || at < 0 {
				return nil, core.Errorf(pyexc.ValueError, "tolerances must be non-negative")
			}
			if a == b {
				return starlark.True, nil
			}
			if math.IsInf(a, 0) || math.IsInf(b, 0) {
				return starlark.False, nil
			}
			d := math.Abs(b - a)
			return starlark.Bool(d <= math.Abs(rt*b) || d <= math.Abs(rt*a) || d <= at), nil
		}),
		"factorial": core.Fn("factorial", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("factorial", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			i, err := core.Index(x)
			if err != nil {
				return nil, err
			}
			n := i.BigInt()
			if n.Sign() < 0 {
				return nil, core.Errorf(pyexc.ValueError, "factorial() not defined for negative values")
			}
			if !n.IsInt64() || n.Int64() > 100000 {
				return nil, core.BigIntCheck(math.Inf(1))
			}
			k := n.Int64()
			if k > 1 {
				if err := core.BigIntCheck(float64(k) * math.Log2(float64(k))); err != nil {
					return nil, err
				}
			}
			return starlark.MakeBigInt(new(big.Int).MulRange(1, max(k, 1))), nil
		}),
		"comb": core.Fn("comb", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return combPerm(th, args, kwargs, true)
		}),
		"perm": core.Fn("perm", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return combPerm(th, args, kwargs, false)
		}),
		"gcd": core.Fn("gcd", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			r := new(big.Int)
			for _, a := range args {
				n, err := core.Index(a)
				if err != nil {
					return nil, err
				}
				g, err := core.BoundedGCD(th, "gcd", r, n.BigInt())
				if err != nil {
					return nil, err
				}
				r = g
			}
			return starlark.MakeBigInt(r), nil
		}),
		"lcm": core.Fn("lcm", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			r := big.NewInt(1)
			for _, a := range args {
				i, err := core.Index(a)
				if err != nil {
					return nil, err
				}
				n := new(big.Int).Abs(i.BigInt())
				if n.Sign() == 0 {
					return starlark.MakeInt(0), nil
				}
				g, err := core.BoundedGCD(th, "lcm", r, n)
				if err != nil {
					return nil, err
				}
				q := new(big.Int).Quo(n, g)
				if err := core.BigIntCheck(float64(r.BitLen() + q.BitLen() - 1)); err != nil {
					return nil, err
				}
				r.Mul(r, q)
			}
			return starlark.MakeBigInt(r), nil
		}),
		"isqrt": core.Fn("isqrt", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("isqrt", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			i, err := core.Index(x)
			if err != nil {
				return nil, err
			}
			n := i.BigInt()
			if n.Sign() < 0 {
				return nil, core.Errorf(pyexc.ValueError, "isqrt() argument must be nonnegative")
			}
			r, err := core.Isqrt(th, n)
			if err != nil {
				return nil, err
			}
			return starlark.MakeBigInt(r), nil
		}),
		"hypot": core.Fn("hypot", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			s := 0.0
			for _, a := range args {
				f, err := core.FloatArg(a)
				if err != nil {
					return nil, err
				}
				s = math.Hypot(s, f)
			}
			return starlark.Float(s), nil
		}),
		"dist": core.Fn("dist", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var p, q starlark.Value
			if err := starlark.UnpackPositionalArgs("dist", args, kwargs, 2, &p, &q); err != nil {
				return nil, err
			}
			ps, err := core.Collect(th, p)
			if err != nil {
				return nil, err
			}
			qs, err := core.Collect(th, q)
			if err != nil {
				return nil, err
			}
			if len(ps) != len(qs) {
				return nil, core.Errorf(pyexc.ValueError, "both points must have the same number of dimensions")
			}
			s := 0.0
			for i := range ps {
				a, err := core.FloatArg(ps[i])
				if err != nil {
					return nil, err
				}
				b, err := core.FloatArg(qs[i])
				if err != nil {
					return nil, err
				}
				s = math.Hypot(s, a-b)
			}
			return starlark.Float(s), nil
		}),
		"prod": core.Fn("prod", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var it starlark.Value
			var acc starlark.Value = starlark.MakeInt(1)
			if err := starlark.UnpackArgs("prod", args, kwargs, "iterable", &it, "start?", &acc); err != nil {
				return nil, err
			}
			err := core.ForEach(th, it, func(v starlark.Value) error {
				// A product of big integers costs each step its size:
				// forEach's check every few thousand items is too rare.
				if err := core.Interrupted(th); err != nil {
					return err
				}
				r, err := core.Mul(th, acc, v)
				acc = r
				return err
			})
			return acc, err
		}),
		"fsum": core.Fn("fsum", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var it starlark.Value
			if err := starlark.UnpackPositionalArgs("fsum", args, kwargs, 1, &it); err != nil {
				return nil, err
			}
			// Shewchuk's exactly rounded summation, as CPython's fsum.
			var partials []float64
			err := core.ForEach(th, it, func(v starlark.Value) error {
				x, err := core.FloatArg(v)
				if err != nil {
					return err
				}
				partials = FsumAdd(partials, x)
				return nil
			})
			if err != nil {
				return nil, err
			}
			return starlark.Float(SumPartials(partials)), nil
		}),
		"modf": core.Fn("modf", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("modf", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			f, err := core.FloatArg(x)
			if err != nil {
				return nil, err
			}
			i, frac := math.Modf(f)
			if math.IsInf(f, 0) {
				// C's modf: an infinity has no fractional part (Go's
				// Modf gives NaN).
				frac = math.Copysign(0, f)
			}
			return starlark.Tuple{starlark.Float(frac), starlark.Float(i)}, nil
		}),
		"frexp": core.Fn("frexp", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("frexp", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			f, err := core.FloatArg(x)
			if err != nil {
				return nil, err
			}
			m, e := math.Frexp(f)
			return starlark.Tuple{starlark.Float(m), starlark.MakeInt(e)}, nil
		}),
		"ldexp": core.Fn("ldexp", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			var e int
			if err := starlark.UnpackPositionalArgs("ldexp", args, kwargs, 2, &x, &e); err != nil {
				return nil, err
			}
			f, err := core.FloatArg(x)
			if err != nil {
				return nil, err
			}
			return MathResult(math.Ldexp(f, e), f)
		}),
	}
	return m
}

func SumPartials(p []float64) float64 {
	if len(p) == 0 {
		return 0
	}
	n := len(p) - 1
	hi := p[n]
	lo := 0.0
	for n > 0 {
		x := hi
		n--
		y := p[n]
		hi = x + y
		yr := hi - x
		lo = y - yr
		if lo != 0 {
			break
		}
	}
	if n > 0 && ((lo < 0 && p[n-1] < 0) || (lo > 0 && p[n-1] > 0)) {
		y := lo * 2
		x := hi + y
		yr := x - hi
		if y == yr {
			hi = x
		}
	}
	return hi
}

func combPerm(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple, comb bool) (starlark.Value, error) {
	name := "perm"
	if comb {
		name = "comb"
	}
	var nv, kv starlark.Value
	if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &nv, &kv); err != nil {
		return nil, err
	}
	ni, err := core.Index(nv)
	if err != nil {
		return nil, err
	}
	n, k := ni.BigInt(), ni.BigInt()
	if kv != nil && kv != starlark.None {
		ki, err := core.Index(kv)
		if err != nil {
			return nil, err
		}
		k = ki.BigInt()
	} else if comb {
		return nil, core.Errorf(pyexc.TypeError, "comb() missing required argument 'k' (pos 2)")
	}
	if n.Sign() < 0 {
		if !comb && (kv == nil || kv == starlark.None) {
			// perm(n) is factorial(n).
			return nil, core.Errorf(pyexc.ValueError, "factorial() not defined for negative values")
		}
		return nil, core.Errorf(pyexc.ValueError, "n must be a non-negative integer")
	}
	if k.Sign() < 0 {
		return nil, core.Errorf(pyexc.ValueError, "k must be a non-negative integer")
	}
	if k.Cmp(n) > 0 {
		return starlark.MakeInt(0), nil
	}
	if !n.IsInt64() {
		return nil, core.BigIntCheck(math.Inf(1))
	}
	nn, kk := n.Int64(), k.Int64()
	if comb && kk > nn-kk {
		kk = nn - kk
	}
	bits := float64(kk) * math.Log2(float64(nn)+1)
	if err := core.BigIntCheck(bits); err != nil {
		return nil, err
	}
	if bits > 1<<16 {
		// Tens of milliseconds of work that cannot be interrupted: not
		// started past the deadline.
		if err := core.Interrupted(th); err != nil {
			return nil, err
		}
	}
	if comb {
		// big.Int.Binomial is quadratic in k (seconds for comb(10**6,
		// 5*10**4)); two products and one division are not.
		var num, den big.Int
		num.MulRange(nn-kk+1, nn)
		den.MulRange(1, max(kk, 1))
		return starlark.MakeBigInt(num.Quo(&num, &den)), nil
	}
	if kk == 0 {
		return starlark.MakeInt(1), nil
	}
	return starlark.MakeBigInt(new(big.Int).MulRange(nn-kk+1, nn)), nil
}

// CPython computes gamma and lgamma itself (mathmodule.c), with Lanczos'
// approximation rather than the C library's, so they are ported here
// rather than taken from Go's math package, whose results differ in the
// last bits. The domain errors are math1's.

const (
	lanczosG          = 6.024680040776729583740234375
	lanczosGMinusHalf = 5.524680040776729583740234375
)

var lanczosNum = [13]float64{
	23531376880.410759688572007674451636754734846804940,
	42919803642.649098768957899047001988850926355848959,
	35711959237.355668049440185451547166705960488635843,
	17921034426.037209699919755754458931112671403265390,
	6039542586.3520280050642916443072979210699388420708,
	1439720407.3117216736632230727949123939715485786772,
	248874557.86205415651146038641322942321632125127801,
	31426415.585400194380614231628318205362874684987640,
	2876370.6289353724412254090516208496135991145378768,
	186056.26539522349504029498971604569928220784236328,
	8071.6720023658162106380029022722506138218516325024,
	210.82427775157934587250973392071336271166969580291,
	2.5066282746310002701649081771338373386264310793408,
}

// lanczosDen is x*(x+1)*...*(x+11) expanded.
var lanczosDen = [13]float64{0.0, 39916800.0, 120543840.0, 150917976.0, 105258076.0, 45995730.0,
	13339535.0, 2637558.0, 357423.0, 32670.0, 1925.0, 66.0, 1.0}

// lanczosSum is the rational function L_g(x) for x > 0, evaluated in 1/x
// for large x to avoid overflow.
func lanczosSum(x float64) float64 {
	num, den := 0.0, 0.0
	if x < 5.0 {
		for i := len(lanczosNum) - 1; i >= 0; i-- {
			num = float64(num*x) + lanczosNum[i]
			den = float64(den*x) + lanczosDen[i]
		}
	} else {
		for i := range lanczosNum {
			num = num/x + lanczosNum[i]
			den = den/x + lanczosDen[i]
		}
	}
	return num / den
}

// sinpi is sin(pi*x) with the argument reduced exactly first.
func sinpi(x float64) float64 {
	y := math.Mod(math.Abs(x), 2.0)
	var r float64
	switch int(math.Round(2.0 * y)) {
	case 0:
		r = math.Sin(float64(math.Pi * y))
	case 1:
		r = math.Cos(float64(math.Pi * (y - 0.5)))
	case 2:
		r = math.Sin(float64(math.Pi * (1.0 - y)))
	case 3:
		r = -math.Cos(float64(math.Pi * (y - 1.5)))
	default:
		r = math.Sin(float64(math.Pi * (y - 2.0)))
	}
	return math.Copysign(1.0, x) * r
}

// lanczosGamma is CPython's m_tgamma (math1 reports its domain errors,
// mathResult its overflows).
func lanczosGamma(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 1) {
		return x
	}
	if x == math.Floor(x) && x > 0 && x <= 23 {
		// (x-1)!, correctly rounded as CPython's table of them is.
		f, _ := new(big.Float).SetInt(new(big.Int).MulRange(1, int64(x)-1)).Float64()
		return f
	}
	absx := math.Abs(x)
	if absx < 1e-20 {
		return 1.0 / x
	}
	if absx > 200.0 {
		if x < 0.0 {
			return 0.0 / sinpi(x)
		}
		return math.Inf(1)
	}
	y := absx + lanczosGMinusHalf
	var z float64
	if absx > lanczosGMinusHalf {
		q := y - absx
		z = q - lanczosGMinusHalf
	} else {
		q := y - lanczosGMinusHalf
		z = q - absx
	}
	z = float64(z*lanczosG) / y
	var r float64
	if x < 0.0 {
		r = -math.Pi / sinpi(absx) / absx * math.Exp(y) / lanczosSum(absx)
		r -= float64(z * r)
		if absx < 140.0 {
			r /= math.Pow(y, absx-0.5)
		} else {
			sqrtpow := math.Pow(y, absx/2.0-0.25)
			r /= sqrtpow
			r /= sqrtpow
		}
	} else {
		r = lanczosSum(absx) / math.Exp(y)
		r += float64(z * r)
		if absx < 140.0 {
			r *= math.Pow(y, absx-0.5)
		} else {
			sqrtpow := math.Pow(y, absx/2.0-0.25)
			r *= sqrtpow
			r *= sqrtpow
		}
	}
	return r
}

// lanczosLgamma is CPython's m_lgamma.
func lanczosLgamma(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	if math.IsInf(x, 0) {
		return math.Inf(1)
	}
	if x == math.Floor(x) && x <= 2.0 {
		return 0.0 // x is 1 or 2: math1 refused the others
	}
	absx := math.Abs(x)
	if absx < 1e-20 {
		return -logFloat(absx)
	}
	r := logFloat(lanczosSum(absx)) - lanczosG
	r += float64((absx - 0.5) * (logFloat(absx+lanczosG-0.5) - 1))
	if x < 0.0 {
		const logpi = 1.144729885849400174143427351353058711647
		r = logpi - logFloat(math.Abs(sinpi(absx))) - logFloat(absx) - r
	}
	return r
}

// FsumAdd adds x to Shewchuk's partial sums.
func FsumAdd(partials []float64, x float64) []float64 {
	i := 0
	for _, y := range partials {
		if math.Abs(x) < math.Abs(y) {
			x, y = y, x
		}
		hi := x + y
		lo := y - (hi - x)
		if lo != 0 {
			partials[i] = lo
			i++
		}
		x = hi
	}
	return append(partials[:i], x)
}

// Module returns a new math module.
func Module() *core.PyModule { return core.NewModule("math", members()) }
