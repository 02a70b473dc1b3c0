package builtins

import (
	"math"
	"math/big"

	"go.starlark.net/starlark"
)

// floatArg converts a real number argument as CPython's math functions do.
func floatArg(v starlark.Value) (float64, error) {
	switch x := v.(type) {
	case starlark.Float:
		return float64(x), nil
	case starlark.Int:
		f := float64(x.Float())
		if math.IsInf(f, 0) {
			return 0, Errorf("OverflowError", "int too large to convert to float")
		}
		return f, nil
	case starlark.Bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, Errorf("TypeError", "must be real number, not %s", TypeName(v))
}

func intArg(fname string, v starlark.Value) (*big.Int, error) {
	switch x := v.(type) {
	case starlark.Int, starlark.Bool:
		return intOf(x), nil
	}
	return nil, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", TypeName(v))
}

func domainError() error { return Errorf("ValueError", "math domain error") }

func mathResult(r float64, args ...float64) (starlark.Value, error) {
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
		return nil, Errorf("OverflowError", "math range error")
	}
	return starlark.Float(r), nil
}

func math1(name string, f func(float64) float64, domain func(float64) bool) *starlark.Builtin {
	return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &x); err != nil {
			return nil, err
		}
		a, err := floatArg(x)
		if err != nil {
			return nil, err
		}
		if domain != nil && !domain(a) {
			return nil, domainError()
		}
		return mathResult(f(a), a)
	})
}

func math2(name string, f func(float64, float64) float64) *starlark.Builtin {
	return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x, y starlark.Value
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 2, &x, &y); err != nil {
			return nil, err
		}
		a, err := floatArg(x)
		if err != nil {
			return nil, err
		}
		b, err := floatArg(y)
		if err != nil {
			return nil, err
		}
		return mathResult(f(a, b), a, b)
	})
}

// logOf is the natural log of an int or float, exact in range for ints
// too large for a float, as CPython's math.log is.
func logOf(v starlark.Value) (float64, error) {
	if x, ok := v.(starlark.Int); ok {
		b := x.BigInt()
		if b.Sign() <= 0 {
			return 0, domainError()
		}
		if bl := b.BitLen(); bl > 1000 {
			shifted := new(big.Int).Rsh(b, uint(bl-64))
			f, _ := new(big.Float).SetInt(shifted).Float64()
			return math.Log(f) + float64(bl-64)*math.Ln2, nil
		}
	}
	f, err := floatArg(v)
	if err != nil {
		return 0, err
	}
	if f <= 0 {
		return 0, domainError()
	}
	return math.Log(f), nil
}

func intResult(f float64) (starlark.Value, error) { return floatToInt(f) }

func rounding(name string, f func(float64) float64) *starlark.Builtin {
	return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &x); err != nil {
			return nil, err
		}
		switch v := x.(type) {
		case starlark.Int:
			return v, nil
		case starlark.Bool:
			return boolInt(v), nil
		}
		a, err := floatArg(x)
		if err != nil {
			return nil, err
		}
		return intResult(f(a))
	})
}

// bigIntCheck refuses integer results estimated above maxIntBits.
func bigIntCheck(bits float64) error {
	if bits > maxIntBits {
		return Errorf("MemoryError", "integer result too large: about %.0f bits (the limit is %d bits)", bits, maxIntBits)
	}
	return nil
}

func mathModule() starlark.StringDict {
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
		"log2":      math1("log2", math.Log2, func(x float64) bool { return x > 0 || math.IsNaN(x) }),
		"log10":     math1("log10", math.Log10, func(x float64) bool { return x > 0 || math.IsNaN(x) }),
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
		"gamma":     math1("gamma", math.Gamma, func(x float64) bool { return !(x <= 0 && x == math.Trunc(x)) }),
		"lgamma":    math1("lgamma", func(x float64) float64 { r, _ := math.Lgamma(x); return r }, func(x float64) bool { return !(x <= 0 && x == math.Trunc(x)) }),
		"cbrt":      math1("cbrt", math.Cbrt, nil),
		"ulp":       math1("ulp", func(x float64) float64 { x = math.Abs(x); return math.Nextafter(x, math.Inf(1)) - x }, nil),
		"atan2":     math2("atan2", math.Atan2),
		"copysign":  math2("copysign", math.Copysign),
		"nextafter": math2("nextafter", math.Nextafter),
		"remainder": math2("remainder", math.Remainder),
		"fmod": fn("fmod", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x, y starlark.Value
			if err := starlark.UnpackPositionalArgs("fmod", args, kwargs, 2, &x, &y); err != nil {
				return nil, err
			}
			a, err := floatArg(x)
			if err != nil {
				return nil, err
			}
			b, err := floatArg(y)
			if err != nil {
				return nil, err
			}
			if b == 0 || math.IsInf(a, 0) {
				return nil, domainError()
			}
			return starlark.Float(math.Mod(a, b)), nil
		}),
		"pow": fn("pow", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x, y starlark.Value
			if err := starlark.UnpackPositionalArgs("pow", args, kwargs, 2, &x, &y); err != nil {
				return nil, err
			}
			a, err := floatArg(x)
			if err != nil {
				return nil, err
			}
			b, err := floatArg(y)
			if err != nil {
				return nil, err
			}
			if a == 0 && b < 0 || a < 0 && b != math.Trunc(b) && !math.IsInf(b, 0) {
				return nil, domainError()
			}
			return mathResult(math.Pow(a, b), a, b)
		}),
		"log": fn("log", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x, base starlark.Value
			if err := starlark.UnpackPositionalArgs("log", args, kwargs, 1, &x, &base); err != nil {
				return nil, err
			}
			l, err := logOf(x)
			if err != nil {
				return nil, err
			}
			if base == nil {
				return starlark.Float(l), nil
			}
			lb, err := logOf(base)
			if err != nil {
				return nil, err
			}
			if lb == 0 {
				return nil, Errorf("ZeroDivisionError", "float division by zero")
			}
			return starlark.Float(l / lb), nil
		}),
		"floor": rounding("floor", math.Floor),
		"ceil":  rounding("ceil", math.Ceil),
		"trunc": rounding("trunc", math.Trunc),
		"isinf": fn("isinf", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("isinf", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			f, err := floatArg(x)
			return starlark.Bool(math.IsInf(f, 0)), err
		}),
		"isnan": fn("isnan", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("isnan", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			f, err := floatArg(x)
			return starlark.Bool(math.IsNaN(f)), err
		}),
		"isfinite": fn("isfinite", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("isfinite", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			f, err := floatArg(x)
			return starlark.Bool(!math.IsInf(f, 0) && !math.IsNaN(f)), err
		}),
		"isclose": fn("isclose", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x, y starlark.Value
			var rel, absTol starlark.Value = starlark.Float(1e-9), starlark.Float(0)
			if err := starlark.UnpackArgs("isclose", args, kwargs, "a", &x, "b", &y, "rel_tol?", &rel, "abs_tol?", &absTol); err != nil {
				return nil, err
			}
			a, err := floatArg(x)
			if err != nil {
				return nil, err
			}
			b, err := floatArg(y)
			if err != nil {
				return nil, err
			}
			rt, _ := floatArg(rel)
			at, _ := floatArg(absTol)
			if rt < 0 || at < 0 {
				return nil, Errorf("ValueError", "tolerances must be non-negative")
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
		"factorial": fn("factorial", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("factorial", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			n, err := intArg("factorial", x)
			if err != nil {
				return nil, err
			}
			if n.Sign() < 0 {
				return nil, Errorf("ValueError", "factorial() not defined for negative values")
			}
			if !n.IsInt64() || n.Int64() > 100000 {
				return nil, bigIntCheck(math.Inf(1))
			}
			k := n.Int64()
			if k > 1 {
				if err := bigIntCheck(float64(k) * math.Log2(float64(k))); err != nil {
					return nil, err
				}
			}
			return starlark.MakeBigInt(new(big.Int).MulRange(1, max(k, 1))), nil
		}),
		"comb": fn("comb", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return combPerm(args, kwargs, true)
		}),
		"perm": fn("perm", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return combPerm(args, kwargs, false)
		}),
		"gcd": fn("gcd", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			r := new(big.Int)
			for _, a := range args {
				n, err := intArg("gcd", a)
				if err != nil {
					return nil, err
				}
				r.GCD(nil, nil, r, new(big.Int).Abs(n))
			}
			return starlark.MakeBigInt(r), nil
		}),
		"lcm": fn("lcm", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			r := big.NewInt(1)
			for _, a := range args {
				n, err := intArg("lcm", a)
				if err != nil {
					return nil, err
				}
				n = new(big.Int).Abs(n)
				if n.Sign() == 0 {
					return starlark.MakeInt(0), nil
				}
				g := new(big.Int).GCD(nil, nil, r, n)
				r.Mul(r, new(big.Int).Quo(n, g))
				if err := bigIntCheck(float64(r.BitLen())); err != nil {
					return nil, err
				}
			}
			return starlark.MakeBigInt(r), nil
		}),
		"isqrt": fn("isqrt", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("isqrt", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			n, err := intArg("isqrt", x)
			if err != nil {
				return nil, err
			}
			if n.Sign() < 0 {
				return nil, Errorf("ValueError", "isqrt() argument must be nonnegative")
			}
			return starlark.MakeBigInt(new(big.Int).Sqrt(n)), nil
		}),
		"hypot": fn("hypot", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			s := 0.0
			for _, a := range args {
				f, err := floatArg(a)
				if err != nil {
					return nil, err
				}
				s = math.Hypot(s, f)
			}
			return starlark.Float(s), nil
		}),
		"dist": fn("dist", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var p, q starlark.Value
			if err := starlark.UnpackPositionalArgs("dist", args, kwargs, 2, &p, &q); err != nil {
				return nil, err
			}
			ps, err := collect(th, p)
			if err != nil {
				return nil, err
			}
			qs, err := collect(th, q)
			if err != nil {
				return nil, err
			}
			if len(ps) != len(qs) {
				return nil, Errorf("ValueError", "both points must have the same number of dimensions")
			}
			s := 0.0
			for i := range ps {
				a, err := floatArg(ps[i])
				if err != nil {
					return nil, err
				}
				b, err := floatArg(qs[i])
				if err != nil {
					return nil, err
				}
				s = math.Hypot(s, a-b)
			}
			return starlark.Float(s), nil
		}),
		"prod": fn("prod", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var it starlark.Value
			var acc starlark.Value = starlark.MakeInt(1)
			if err := starlark.UnpackArgs("prod", args, kwargs, "iterable", &it, "start?", &acc); err != nil {
				return nil, err
			}
			err := forEach(th, it, func(v starlark.Value) error {
				r, err := mul(th, acc, v)
				acc = r
				return err
			})
			return acc, err
		}),
		"fsum": fn("fsum", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var it starlark.Value
			if err := starlark.UnpackPositionalArgs("fsum", args, kwargs, 1, &it); err != nil {
				return nil, err
			}
			// Shewchuk's exactly rounded summation, as CPython's fsum.
			var partials []float64
			err := forEach(th, it, func(v starlark.Value) error {
				x, err := floatArg(v)
				if err != nil {
					return err
				}
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
				partials = append(partials[:i], x)
				return nil
			})
			if err != nil {
				return nil, err
			}
			return starlark.Float(sumPartials(partials)), nil
		}),
		"modf": fn("modf", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("modf", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			f, err := floatArg(x)
			if err != nil {
				return nil, err
			}
			i, frac := math.Modf(f)
			return starlark.Tuple{starlark.Float(frac), starlark.Float(i)}, nil
		}),
		"frexp": fn("frexp", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("frexp", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			f, err := floatArg(x)
			if err != nil {
				return nil, err
			}
			m, e := math.Frexp(f)
			return starlark.Tuple{starlark.Float(m), starlark.MakeInt(e)}, nil
		}),
		"ldexp": fn("ldexp", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			var e int
			if err := starlark.UnpackPositionalArgs("ldexp", args, kwargs, 2, &x, &e); err != nil {
				return nil, err
			}
			f, err := floatArg(x)
			if err != nil {
				return nil, err
			}
			return mathResult(math.Ldexp(f, e), f)
		}),
	}
	return m
}

func sumPartials(p []float64) float64 {
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

func combPerm(args starlark.Tuple, kwargs []starlark.Tuple, comb bool) (starlark.Value, error) {
	name := "perm"
	if comb {
		name = "comb"
	}
	var nv, kv starlark.Value
	if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &nv, &kv); err != nil {
		return nil, err
	}
	n, err := intArg(name, nv)
	if err != nil {
		return nil, err
	}
	k := new(big.Int).Set(n)
	if kv != nil && kv != starlark.None {
		if k, err = intArg(name, kv); err != nil {
			return nil, err
		}
	} else if comb {
		return nil, Errorf("TypeError", "comb() missing required argument 'k' (pos 2)")
	}
	if n.Sign() < 0 {
		return nil, Errorf("ValueError", "n must be a non-negative integer")
	}
	if k.Sign() < 0 {
		return nil, Errorf("ValueError", "k must be a non-negative integer")
	}
	if k.Cmp(n) > 0 {
		return starlark.MakeInt(0), nil
	}
	if !n.IsInt64() {
		return nil, bigIntCheck(math.Inf(1))
	}
	nn, kk := n.Int64(), k.Int64()
	if comb && kk > nn-kk {
		kk = nn - kk
	}
	if err := bigIntCheck(float64(kk) * math.Log2(float64(nn)+1)); err != nil {
		return nil, err
	}
	if comb {
		return starlark.MakeBigInt(new(big.Int).Binomial(nn, kk)), nil
	}
	if kk == 0 {
		return starlark.MakeInt(1), nil
	}
	return starlark.MakeBigInt(new(big.Int).MulRange(nn-kk+1, nn)), nil
}

func init() { register("math", mathModule) }
