package statistics

import (
	"math"
	"math/big"

	"github.com/star-agent/star-agent/builtins/core"
	pyfractions "github.com/star-agent/star-agent/builtins/lib/fractions"
	pymath "github.com/star-agent/star-agent/builtins/lib/math"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// The averages: means, medians, modes and quantiles.

func mean(th *starlark.Thread, data starlark.Value) (starlark.Value, error) {
	s, err := sumTerms(th, data, nil)
	if err != nil {
		return nil, err
	}
	if s.count < 1 {
		return nil, statErr("mean requires at least one data point")
	}
	return s.divResult(th, new(big.Rat).SetInt64(int64(s.count)))
}

func fmean(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var data, weights starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs("fmean", args, kwargs, "data", &data, "weights?", &weights); err != nil {
		return nil, err
	}
	vals, err := core.Collect(th, data)
	if err != nil {
		return nil, err
	}
	if weights == starlark.None {
		total, err := fsumValues(th, vals)
		if err != nil {
			return nil, err
		}
		if len(vals) == 0 {
			return nil, statErr("fmean requires at least one data point")
		}
		return starlark.Float(total / float64(len(vals))), nil
	}
	ws, err := core.Collect(th, weights)
	if err != nil {
		return nil, err
	}
	prods := make([]starlark.Value, 0, min(len(vals), len(ws)))
	for i := 0; i < len(vals) && i < len(ws); i++ {
		p, err := core.PyArith(th, syntax.STAR, vals[i], ws[i])
		if err != nil {
			return nil, err
		}
		prods = append(prods, p)
	}
	num, err := fsumValues(th, prods)
	if err != nil {
		return nil, err
	}
	if len(vals) != len(ws) {
		return nil, statErr("data and weights must be the same length")
	}
	den, err := fsumValues(th, ws)
	if err != nil {
		return nil, err
	}
	if den == 0 {
		return nil, statErr("sum of weights must be non-zero")
	}
	return starlark.Float(num / den), nil
}

func geometricMean(th *starlark.Thread, data starlark.Value) (starlark.Value, error) {
	vals, err := core.Collect(th, data)
	if err != nil {
		return nil, err
	}
	logs := make([]starlark.Value, len(vals))
	for i, v := range vals {
		l, err := pymath.LogOf(v)
		if err != nil {
			if e, ok := err.(*core.Error); ok && e.Type == pyexc.ValueError.Name() {
				return nil, statErr("geometric mean requires a non-empty dataset containing positive numbers")
			}
			return nil, err
		}
		logs[i] = starlark.Float(l)
	}
	if len(vals) == 0 {
		return nil, statErr("geometric mean requires a non-empty dataset containing positive numbers")
	}
	total, err := fsumValues(th, logs)
	if err != nil {
		return nil, err
	}
	return pymath.MathResult(math.Exp(total/float64(len(vals))), total)
}

func harmonicMean(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var data, weights starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs("harmonic_mean", args, kwargs, "data", &data, "weights?", &weights); err != nil {
		return nil, err
	}
	const errmsg = "harmonic mean does not support negative values"
	vals, err := sizedData(th, data)
	if err != nil {
		return nil, err
	}
	n := len(vals)
	if n < 1 {
		return nil, statErr("harmonic_mean requires at least one data point")
	}
	negative := func(x starlark.Value) (bool, error) {
		return core.PyCompare(syntax.LT, x, starlark.MakeInt(0))
	}
	if n == 1 && weights == starlark.None {
		if _, ok := data.(starlark.Indexable); !ok {
			return nil, core.Errorf(pyexc.TypeError, "'%s' object is not subscriptable", core.TypeName(data))
		}
		x := vals[0]
		switch x.(type) {
		case starlark.Int, starlark.Bool, starlark.Float, core.PyNumber:
		default:
			return nil, core.Errorf(pyexc.TypeError, "unsupported type")
		}
		if neg, err := negative(x); err != nil || neg {
			if err != nil {
				return nil, err
			}
			return nil, statErr(errmsg)
		}
		return x, nil
	}
	var ws []starlark.Value
	var sumWeights starlark.Value = starlark.MakeInt(n)
	if weights == starlark.None {
		ws = make([]starlark.Value, n)
		for i := range ws {
			ws[i] = starlark.MakeInt(1)
		}
	} else {
		if ws, err = core.Collect(th, weights); err != nil {
			return nil, err
		}
		if len(ws) != n {
			return nil, statErr("Number of weights does not match data size")
		}
		s, err := sumTerms(th, starlark.NewList(ws), func(w starlark.Value) (starlark.Value, error) {
			if neg, err := negative(w); err != nil || neg {
				if err != nil {
					return nil, err
				}
				return nil, statErr(errmsg)
			}
			return w, nil
		})
		if err != nil {
			return nil, err
		}
		if s.total == nil {
			sumWeights = s.nonfin
		} else {
			sumWeights = pyfractions.NewFraction(s.total)
		}
	}
	i := 0
	s, err := sumTerms(th, starlark.NewList(vals), func(x starlark.Value) (starlark.Value, error) {
		w := ws[i]
		i++
		if neg, err := negative(x); err != nil || neg {
			if err != nil {
				return nil, err
			}
			return nil, statErr(errmsg)
		}
		if !w.Truth() {
			return starlark.MakeInt(0), nil
		}
		return core.PyArith(th, syntax.SLASH, w, x)
	})
	if e, ok := err.(*core.Error); ok && e.Type == pyexc.ZeroDivisionError.Name() {
		return starlark.MakeInt(0), nil
	}
	if err != nil {
		return nil, err
	}
	if s.total == nil {
		return nil, core.Errorf(pyexc.NotImplementedError, "harmonic_mean of non-finite values is not supported by the Starlark engine")
	}
	if s.total.Sign() <= 0 {
		return nil, statErr("Weighted sum must be positive")
	}
	var sw *big.Rat
	switch w := sumWeights.(type) {
	case starlark.Int:
		sw = new(big.Rat).SetInt(w.BigInt())
	case *pyfractions.Fraction:
		sw = w.R
	default:
		return nil, core.Errorf(pyexc.NotImplementedError, "harmonic_mean with non-finite weights is not supported by the Starlark engine")
	}
	return s.typ.convert(th, new(big.Rat).Quo(sw, s.total))
}

func median(th *starlark.Thread, data starlark.Value) (starlark.Value, error) {
	s, err := sortedData(th, data)
	if err != nil {
		return nil, err
	}
	n := len(s)
	if n == 0 {
		return nil, statErr("no median for empty data")
	}
	if n%2 == 1 {
		return s[n/2], nil
	}
	sum, err := core.PyArith(th, syntax.PLUS, s[n/2-1], s[n/2])
	if err != nil {
		return nil, err
	}
	return core.PyArith(th, syntax.SLASH, sum, starlark.MakeInt(2))
}

func medianLow(th *starlark.Thread, data starlark.Value) (starlark.Value, error) {
	s, err := sortedData(th, data)
	if err != nil {
		return nil, err
	}
	if len(s) == 0 {
		return nil, statErr("no median for empty data")
	}
	return s[(len(s)-1)/2], nil
}

func medianHigh(th *starlark.Thread, data starlark.Value) (starlark.Value, error) {
	s, err := sortedData(th, data)
	if err != nil {
		return nil, err
	}
	if len(s) == 0 {
		return nil, statErr("no median for empty data")
	}
	return s[len(s)/2], nil
}

func medianGrouped(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var data starlark.Value
	var interval starlark.Value = starlark.Float(1)
	if err := starlark.UnpackArgs("median_grouped", args, kwargs, "data", &data, "interval?", &interval); err != nil {
		return nil, err
	}
	s, err := sortedData(th, data)
	if err != nil {
		return nil, err
	}
	n := len(s)
	if n == 0 {
		return nil, statErr("no median for empty data")
	}
	x := s[n/2]
	// bisect_left and bisect_right of x in the sorted data.
	i := 0
	for i < n {
		lt, err := core.PyLess(s[i], x)
		if err != nil {
			return nil, err
		}
		if !lt {
			break
		}
		i++
	}
	j := i
	for j < n {
		lt, err := core.PyLess(x, s[j])
		if err != nil {
			return nil, err
		}
		if lt {
			break
		}
		j++
	}
	toFloat := func(v starlark.Value) (float64, error) {
		f, err := core.NewFloat(th, starlark.Tuple{v}, nil)
		if err != nil {
			if e, ok := err.(*core.Error); ok && e.Type == pyexc.ValueError.Name() {
				return 0, core.Errorf(pyexc.TypeError, "Value cannot be converted to a float")
			}
			return 0, err
		}
		return float64(f.(starlark.Float)), nil
	}
	iv, err := toFloat(interval)
	if err != nil {
		return nil, err
	}
	xf, err := toFloat(x)
	if err != nil {
		return nil, err
	}
	lower := xf - iv/2.0
	return starlark.Float(lower + iv*(float64(n)/2-float64(i))/float64(j-i)), nil
}

func mode(th *starlark.Thread, data starlark.Value) (starlark.Value, error) {
	modes, err := modesOf(th, data)
	if err != nil {
		return nil, err
	}
	if len(modes) == 0 {
		return nil, statErr("no mode for empty data")
	}
	return modes[0], nil
}

func multimode(th *starlark.Thread, data starlark.Value) (starlark.Value, error) {
	modes, err := modesOf(th, data)
	if err != nil {
		return nil, err
	}
	return starlark.NewList(modes), nil
}

func quantiles(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 1 {
		if len(args) == 0 {
			return nil, core.Errorf(pyexc.TypeError, "quantiles() missing 1 required positional argument: 'data'")
		}
		return nil, core.Errorf(pyexc.TypeError, "quantiles() takes 1 positional argument but %d were given", len(args))
	}
	var nv starlark.Value = starlark.MakeInt(4)
	var method starlark.Value = starlark.String("exclusive")
	if err := starlark.UnpackArgs("quantiles", nil, kwargs, "n?", &nv, "method?", &method); err != nil {
		return nil, err
	}
	if lt, err := core.PyCompare(syntax.LT, nv, starlark.MakeInt(1)); err != nil || lt {
		if err != nil {
			return nil, err
		}
		return nil, statErr("n must be at least 1")
	}
	n, err := core.IndexInt(nv)
	if err != nil {
		return nil, err
	}
	s, err := sortedData(th, args[0])
	if err != nil {
		return nil, err
	}
	ld := len(s)
	if ld < 2 {
		return nil, statErr("must have at least two data points")
	}
	if err := core.Alloc(th, int64(n)*core.ElemSize); err != nil {
		return nil, err
	}
	calls := 0
	interp := func(a, b starlark.Value, wa, wb int) (starlark.Value, error) {
		if calls++; calls%4096 == 0 {
			if err := core.Interrupted(th); err != nil {
				return nil, err
			}
		}
		x, err := core.PyArith(th, syntax.STAR, a, starlark.MakeInt(wa))
		if err != nil {
			return nil, err
		}
		y, err := core.PyArith(th, syntax.STAR, b, starlark.MakeInt(wb))
		if err != nil {
			return nil, err
		}
		sum, err := core.PyArith(th, syntax.PLUS, x, y)
		if err != nil {
			return nil, err
		}
		return core.PyArith(th, syntax.SLASH, sum, starlark.MakeInt(n))
	}
	var result []starlark.Value
	switch method {
	case starlark.String("inclusive"):
		m := ld - 1
		for i := 1; i < n; i++ {
			j, delta := i*m/n, i*m%n
			v, err := interp(s[j], s[j+1], n-delta, delta)
			if err != nil {
				return nil, err
			}
			result = append(result, v)
		}
	case starlark.String("exclusive"):
		m := ld + 1
		for i := 1; i < n; i++ {
			j := min(max(i*m/n, 1), ld-1)
			delta := i*m - j*n
			v, err := interp(s[j-1], s[j], n-delta, delta)
			if err != nil {
				return nil, err
			}
			result = append(result, v)
		}
	default:
		return nil, core.Errorf(pyexc.ValueError, "Unknown method: %s", core.Repr(method))
	}
	return starlark.NewList(result), nil
}

// sortedData is a sorted copy of the data.
func sortedData(th *starlark.Thread, data starlark.Value) ([]starlark.Value, error) {
	vals, err := core.Collect(th, data)
	if err != nil {
		return nil, err
	}
	s := append([]starlark.Value(nil), vals...)
	return s, core.SortValues(th, s, starlark.None, false)
}

// modesOf returns the most common values in first-seen order.
func modesOf(th *starlark.Thread, data starlark.Value) ([]starlark.Value, error) {
	counts := starlark.NewDict(0)
	best := 0
	err := core.ForEach(th, data, func(v starlark.Value) error {
		c, _, err := counts.Get(v)
		if err != nil {
			return core.Unhashable(v, err)
		}
		n := 1
		if c != nil {
			n, _ = core.IndexInt(c)
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
		if n, _ := core.IndexInt(v); n == best {
			out = append(out, k)
		}
	}
	return out, nil
}
