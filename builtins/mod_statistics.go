package builtins

import (
	"math"
	"math/big"

	"go.starlark.net/starlark"
)

// statistics: computed with exact rationals, as CPython does, so results
// (including int results for exact int means) match.

// statData reads numbers into exact rationals; allInt reports whether
// every value was an int (then exact results stay ints).
func statData(th *starlark.Thread, name string, it starlark.Value) ([]starlark.Value, []*big.Rat, bool, error) {
	vals, err := collect(th, it)
	if err != nil {
		return nil, nil, false, err
	}
	rats := make([]*big.Rat, len(vals))
	allInt := true
	for i, v := range vals {
		switch x := numArg(v).(type) {
		case starlark.Int:
			rats[i] = new(big.Rat).SetInt(x.BigInt())
		case starlark.Float:
			f := float64(x)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, nil, false, Errorf("ValueError", "%s of non-finite values is not supported here", name)
			}
			rats[i] = new(big.Rat).SetFloat64(f)
			allInt = false
		default:
			return nil, nil, false, Errorf("TypeError", "can't convert type '%s' to numerator/denominator", TypeName(v))
		}
	}
	return vals, rats, allInt, nil
}

// ratResult converts an exact result to int (if all data were ints and
// the result is integral) or float, as statistics._convert does.
func ratResult(r *big.Rat, allInt bool) starlark.Value {
	if allInt && r.IsInt() {
		return starlark.MakeBigInt(new(big.Int).Set(r.Num()))
	}
	f, _ := r.Float64()
	return starlark.Float(f)
}

func statErr(format string, args ...any) error { return Errorf("StatisticsError", format, args...) }

func ratMean(rats []*big.Rat) *big.Rat {
	sum := new(big.Rat)
	for _, r := range rats {
		sum.Add(sum, r)
	}
	return sum.Quo(sum, new(big.Rat).SetInt64(int64(len(rats))))
}

// ssDev is the exact sum of squared deviations from the mean.
func ssDev(rats []*big.Rat) *big.Rat {
	m := ratMean(rats)
	ss := new(big.Rat)
	for _, r := range rats {
		d := new(big.Rat).Sub(r, m)
		ss.Add(ss, d.Mul(d, d))
	}
	return ss
}

func statisticsModule() starlark.StringDict {
	unary := func(name string, f func(th *starlark.Thread, vals []starlark.Value, rats []*big.Rat, allInt bool) (starlark.Value, error)) *starlark.Builtin {
		return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var data, extra starlark.Value
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &data, &extra); err != nil {
				return nil, err
			}
			vals, rats, allInt, err := statData(th, name, data)
			if err != nil {
				return nil, err
			}
			return f(th, vals, rats, allInt)
		})
	}
	variance := func(name string, sample bool, sqrt bool) *starlark.Builtin {
		return unary(name, func(th *starlark.Thread, vals []starlark.Value, rats []*big.Rat, allInt bool) (starlark.Value, error) {
			n := len(rats)
			if sample && n < 2 {
				return nil, statErr("%s requires at least two data points", map[bool]string{true: "stdev", false: "variance"}[sqrt])
			}
			if !sample && n < 1 {
				return nil, statErr("%s requires at least one data point", map[bool]string{true: "pstdev", false: "pvariance"}[sqrt])
			}
			d := int64(n)
			if sample {
				d--
			}
			v := ssDev(rats)
			v.Quo(v, new(big.Rat).SetInt64(d))
			if sqrt {
				f, _ := v.Float64()
				return starlark.Float(math.Sqrt(f)), nil
			}
			return ratResult(v, allInt), nil
		})
	}
	sortedData := func(th *starlark.Thread, vals []starlark.Value) ([]starlark.Value, error) {
		s := append([]starlark.Value(nil), vals...)
		return s, sortValues(th, s, starlark.None, false)
	}
	return starlark.StringDict{
		"mean": unary("mean", func(th *starlark.Thread, vals []starlark.Value, rats []*big.Rat, allInt bool) (starlark.Value, error) {
			if len(rats) == 0 {
				return nil, statErr("mean requires at least one data point")
			}
			return ratResult(ratMean(rats), allInt), nil
		}),
		"fmean": unary("fmean", func(th *starlark.Thread, vals []starlark.Value, rats []*big.Rat, allInt bool) (starlark.Value, error) {
			if len(rats) == 0 {
				return nil, statErr("fmean requires at least one data point")
			}
			f, _ := ratMean(rats).Float64()
			return starlark.Float(f), nil
		}),
		"median": unary("median", func(th *starlark.Thread, vals []starlark.Value, rats []*big.Rat, allInt bool) (starlark.Value, error) {
			n := len(vals)
			if n == 0 {
				return nil, statErr("no median for empty data")
			}
			s, err := sortedData(th, vals)
			if err != nil {
				return nil, err
			}
			if n%2 == 1 {
				return s[n/2], nil
			}
			a, _ := floatArg(s[n/2-1])
			b, _ := floatArg(s[n/2])
			return starlark.Float((a + b) / 2), nil
		}),
		"median_low": unary("median_low", func(th *starlark.Thread, vals []starlark.Value, rats []*big.Rat, allInt bool) (starlark.Value, error) {
			if len(vals) == 0 {
				return nil, statErr("no median for empty data")
			}
			s, err := sortedData(th, vals)
			if err != nil {
				return nil, err
			}
			return s[(len(s)-1)/2], nil
		}),
		"median_high": unary("median_high", func(th *starlark.Thread, vals []starlark.Value, rats []*big.Rat, allInt bool) (starlark.Value, error) {
			if len(vals) == 0 {
				return nil, statErr("no median for empty data")
			}
			s, err := sortedData(th, vals)
			if err != nil {
				return nil, err
			}
			return s[len(s)/2], nil
		}),
		"mode": fn("mode", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var data starlark.Value
			if err := starlark.UnpackPositionalArgs("mode", args, kwargs, 1, &data); err != nil {
				return nil, err
			}
			modes, err := modesOf(th, data)
			if err != nil {
				return nil, err
			}
			if len(modes) == 0 {
				return nil, statErr("no mode for empty data")
			}
			return modes[0], nil
		}),
		"multimode": fn("multimode", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var data starlark.Value
			if err := starlark.UnpackPositionalArgs("multimode", args, kwargs, 1, &data); err != nil {
				return nil, err
			}
			modes, err := modesOf(th, data)
			if err != nil {
				return nil, err
			}
			return starlark.NewList(modes), nil
		}),
		"variance":  variance("variance", true, false),
		"pvariance": variance("pvariance", false, false),
		"stdev":     variance("stdev", true, true),
		"pstdev":    variance("pstdev", false, true),
		"geometric_mean": unary("geometric_mean", func(th *starlark.Thread, vals []starlark.Value, rats []*big.Rat, allInt bool) (starlark.Value, error) {
			if len(rats) == 0 {
				return nil, statErr("geometric_mean requires a non-empty dataset containing positive numbers")
			}
			s := 0.0
			for _, r := range rats {
				f, _ := r.Float64()
				if f <= 0 {
					return nil, statErr("geometric_mean requires a non-empty dataset containing positive numbers")
				}
				s += math.Log(f)
			}
			return starlark.Float(math.Exp(s / float64(len(rats)))), nil
		}),
		"harmonic_mean": unary("harmonic_mean", func(th *starlark.Thread, vals []starlark.Value, rats []*big.Rat, allInt bool) (starlark.Value, error) {
			if len(rats) == 0 {
				return nil, statErr("harmonic_mean requires at least one data point")
			}
			sum := new(big.Rat)
			for _, r := range rats {
				if r.Sign() < 0 {
					return nil, statErr("harmonic mean does not support negative values")
				}
				if r.Sign() == 0 {
					return starlark.MakeInt(0), nil
				}
				sum.Add(sum, new(big.Rat).Inv(r))
			}
			return ratResult(new(big.Rat).Quo(new(big.Rat).SetInt64(int64(len(rats))), sum), allInt), nil
		}),
	}
}

// modesOf returns the most common values in first-seen order.
func modesOf(th *starlark.Thread, data starlark.Value) ([]starlark.Value, error) {
	counts := starlark.NewDict(0)
	best := 0
	err := forEach(th, data, func(v starlark.Value) error {
		c, _, err := counts.Get(v)
		if err != nil {
			return unhashable(v, err)
		}
		n := 1
		if c != nil {
			n, _ = toInt(c)
			n++
		}
		best = max(best, n)
		return counts.SetKey(v, starlark.MakeInt(n))
	})
	if err != nil {
		return nil, err
	}
	var out []starlark.Value
	for k, v := range counts.Entries() {
		if n, _ := toInt(v); n == best {
			out = append(out, k)
		}
	}
	return out, nil
}

func init() { register("statistics", statisticsModule) }
