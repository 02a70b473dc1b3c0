package statistics

import (
	"math"
	"math/big"
	"strings"

	"github.com/star-agent/star-agent/builtins/core"
	pydecimal "github.com/star-agent/star-agent/builtins/lib/decimal"
	pyfractions "github.com/star-agent/star-agent/builtins/lib/fractions"
	pymath "github.com/star-agent/star-agent/builtins/lib/math"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// statistics, ported from CPython 3.11's statistics.py: sums of exact
// ratios converted back to the data's type (_sum, _ss, _convert),
// correctly rounded square roots, fsum-based fmean, covariance,
// correlation and linear_regression, and its error messages. NormalDist
// is not provided.

func statErr(format string, args ...any) error {
	return core.Errorf(pyexc.StatisticsError, format, args...)
}

// statType is the numeric type statistics converts results to: int,
// float, or a module's type (Fraction, Decimal) given by a value of it.
type statType struct {
	name   string // Python type name: "int", "bool", "float", "Fraction", "Decimal"
	sample starlark.Value
}

var (
	statInt   = statType{name: "int"}
	statFloat = statType{name: "float"}
)

// statTerm is one datum as _exact_ratio reads it: an exact ratio, or a
// non-finite value (NaN, infinity) that is summed as itself.
type statTerm struct {
	typ    statType
	ratio  *big.Rat
	nonfin starlark.Value // set when the value is not finite
}

// exactRatio is statistics._exact_ratio.
func exactRatio(v starlark.Value) (statTerm, error) {
	switch x := v.(type) {
	case starlark.Bool:
		return statTerm{typ: statType{name: "bool"}, ratio: new(big.Rat).SetInt(core.BoolInt(x).BigInt())}, nil
	case starlark.Int:
		return statTerm{typ: statInt, ratio: new(big.Rat).SetInt(x.BigInt())}, nil
	case starlark.Float:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return statTerm{typ: statFloat, nonfin: x}, nil
		}
		return statTerm{typ: statFloat, ratio: new(big.Rat).SetFloat64(f)}, nil
	case core.PyNumber:
		name := core.TypeName(v)
		name = name[strings.LastIndex(name, ".")+1:]
		t := statTerm{typ: statType{name: name, sample: v}}
		r, ok := x.ExactRatio()
		if !ok {
			t.nonfin = v
		}
		t.ratio = r
		return t, nil
	}
	return statTerm{}, core.Errorf(pyexc.TypeError, "can't convert type '%s' to numerator/denominator", core.TypeName(v))
}

// coerce is statistics._coerce for the types this engine has.
func coerce(t, s statType) (statType, error) {
	switch {
	case t.name == s.name:
		return t, nil
	case s.name == "int" || s.name == "bool":
		return t, nil
	case t.name == "int":
		return s, nil
	case t.name == "Fraction" && s.name == "float":
		return s, nil
	case t.name == "float" && s.name == "Fraction":
		return t, nil
	}
	return statType{}, core.Errorf(pyexc.TypeError, "don't know how to coerce %s and %s", t.name, s.name)
}

// statSum is statistics._sum: the exact sum of the data, the type to
// convert results to, and the count. A non-finite datum makes total nil
// and nonfin the sum of the non-finite values.
type statSum struct {
	typ    statType
	total  *big.Rat
	nonfin starlark.Value
	count  int
}

func sumTerms(th *starlark.Thread, data starlark.Value, each func(v starlark.Value) (starlark.Value, error)) (statSum, error) {
	s := statSum{typ: statInt, total: new(big.Rat)}
	var types []statType
	seen := map[string]bool{}
	err := core.ForEach(th, data, func(v starlark.Value) error {
		if each != nil {
			var err error
			if v, err = each(v); err != nil {
				return err
			}
		}
		t, err := exactRatio(v)
		if err != nil {
			return err
		}
		if !seen[t.typ.name] {
			seen[t.typ.name] = true
			types = append(types, t.typ)
		}
		s.count++
		if t.nonfin != nil {
			if s.nonfin == nil {
				s.nonfin = starlark.MakeInt(0)
			}
			if s.nonfin, err = core.PyArith(th, syntax.PLUS, s.nonfin, t.nonfin); err != nil {
				return err
			}
			return nil
		}
		if err := checkStatRat(th, t.ratio); err != nil {
			return err
		}
		s.total.Add(s.total, t.ratio)
		return checkStatRat(th, s.total)
	})
	if err != nil {
		return s, err
	}
	for _, t := range types {
		if s.typ, err = coerce(s.typ, t); err != nil {
			return s, err
		}
	}
	if s.nonfin != nil {
		s.total = nil
	}
	return s, nil
}

// convert is statistics._convert: an exact value as the data's type (an
// int only when integral).
func (t statType) convert(th *starlark.Thread, r *big.Rat) (starlark.Value, error) {
	switch t.name {
	case "int", "bool":
		if r.IsInt() {
			return starlark.MakeBigInt(new(big.Int).Set(r.Num())), nil
		}
		f, err := core.RatFloat(r)
		return starlark.Float(f), err
	case "float":
		f, err := core.RatFloat(r)
		return starlark.Float(f), err
	}
	return fromRatio(th, t.sample, r)
}

// fromRatio makes a value of the module numeric type of sample from an
// exact ratio: Fraction(r), or Decimal(num) / Decimal(den).
func fromRatio(th *starlark.Thread, sample starlark.Value, r *big.Rat) (starlark.Value, error) {
	if f, ok := sample.(interface {
		FromRatio(th *starlark.Thread, r *big.Rat) (starlark.Value, error)
	}); ok {
		return f.FromRatio(th, r)
	}
	return nil, core.Errorf(pyexc.TypeError, "cannot convert to %s", core.TypeName(sample))
}

// divResult is _convert(total / n, T) when total may be non-finite.
func (s statSum) divResult(th *starlark.Thread, n *big.Rat) (starlark.Value, error) {
	if s.total == nil {
		return core.PyArith(th, syntax.SLASH, s.nonfin, starlark.MakeBigInt(new(big.Int).Set(n.Num())))
	}
	return s.typ.convert(th, new(big.Rat).Quo(s.total, n))
}

// statSS is statistics._ss: the type, the exact sum of squared
// deviations (or the non-finite sum), the mean used and the count.
func statSS(th *starlark.Thread, data, c starlark.Value) (statSum, starlark.Value, error) {
	if c != nil && c != starlark.None {
		s, err := sumTerms(th, data, func(x starlark.Value) (starlark.Value, error) {
			d, err := core.PyArith(th, syntax.MINUS, x, c)
			if err != nil {
				return nil, err
			}
			return core.PyArith(th, syntax.STAR, d, d)
		})
		return s, c, err
	}
	// One pass: the sums of x and x*x give the exact squared deviations.
	s := statSum{typ: statInt}
	sx, sxx := new(big.Rat), new(big.Rat)
	var types []statType
	seen := map[string]bool{}
	err := core.ForEach(th, data, func(v starlark.Value) error {
		t, err := exactRatio(v)
		if err != nil {
			return err
		}
		if !seen[t.typ.name] {
			seen[t.typ.name] = true
			types = append(types, t.typ)
		}
		s.count++
		if t.nonfin != nil {
			if s.nonfin == nil {
				s.nonfin = starlark.MakeInt(0)
			}
			s.nonfin, err = core.PyArith(th, syntax.PLUS, s.nonfin, t.nonfin)
			return err
		}
		if err := checkStatRat(th, t.ratio); err != nil {
			return err
		}
		sx.Add(sx, t.ratio)
		sxx.Add(sxx, new(big.Rat).Mul(t.ratio, t.ratio))
		if err := checkStatRat(th, sx); err != nil {
			return err
		}
		return checkStatRat(th, sxx)
	})
	if err != nil {
		return s, nil, err
	}
	for _, t := range types {
		if s.typ, err = coerce(s.typ, t); err != nil {
			return s, nil, err
		}
	}
	switch {
	case s.count == 0:
		s.total = new(big.Rat)
		return s, nil, nil
	case s.nonfin != nil:
		return s, s.nonfin, nil
	}
	n := new(big.Rat).SetInt64(int64(s.count))
	// ssd = (n*sxx - sx*sx) / n
	ssd := new(big.Rat).Mul(n, sxx)
	ssd.Sub(ssd, new(big.Rat).Mul(sx, sx))
	s.total = ssd.Quo(ssd, n)
	return s, nil, nil
}

// checkStatRat bounds the exact fractions statistics sums, term by term:
// every addition of fractions reduces by a gcd, quadratic in their size
// and uninterruptible (math/big), and data of many unrelated denominators
// makes the sum's grow without end. Past a modest size the deadline is
// checked at every term instead of every few thousand.
func checkStatRat(th *starlark.Thread, r *big.Rat) error {
	num, den := r.Num().BitLen(), r.Denom().BitLen()
	if den > core.MaxGCDBits/2 || num > 2*core.MaxOperandBits {
		return core.Errorf(pyexc.MemoryError, "statistics: the exact sum of the data needs a fraction of %d/%d bits, "+
			"too large to compute here (the limits are %d/%d bits); convert the data to float first",
			num, den, 2*core.MaxOperandBits, core.MaxGCDBits/2)
	}
	if num+den > 1<<12 {
		return core.Interrupted(th)
	}
	return nil
}

// floatSqrtOfFrac is statistics._float_sqrt_of_frac: sqrt(n/m) correctly
// rounded, through an integer square root rounded to odd.
func floatSqrtOfFrac(n, m *big.Int) (float64, error) {
	rto := func(n, m *big.Int) *big.Int {
		a, _ := core.Isqrt(nil, new(big.Int).Quo(n, m)) // bigint.go: far faster than big.Int.Sqrt on big numbers
		sq := new(big.Int).Mul(a, a)
		if sq.Mul(sq, m).Cmp(n) != 0 {
			a.SetBit(a, 0, 1)
		}
		return a
	}
	const sqrtBitWidth = 2*53 + 3
	q := core.FloorDivInt(n.BitLen()-m.BitLen()-sqrtBitWidth, 2)
	var num, den *big.Int
	if q >= 0 {
		num = new(big.Int).Lsh(rto(n, new(big.Int).Lsh(m, uint(2*q))), uint(q))
		den = big.NewInt(1)
	} else {
		num = rto(new(big.Int).Lsh(n, uint(-2*q)), m)
		den = new(big.Int).Lsh(big.NewInt(1), uint(-q))
	}
	v, err := core.IntTrueDiv(num, den)
	if err != nil {
		return 0, err
	}
	return float64(v.(starlark.Float)), nil
}

// sizedData is len(data) for the functions that need it.
func sizedData(th *starlark.Thread, data starlark.Value) ([]starlark.Value, error) {
	if starlark.Len(data) < 0 {
		if _, ok := data.(starlark.Sequence); !ok {
			return nil, core.Errorf(pyexc.TypeError, "object of type '%s' has no len()", core.TypeName(data))
		}
	}
	return core.Collect(th, data)
}

// fsumValues is math.fsum of values.
func fsumValues(th *starlark.Thread, vals []starlark.Value) (float64, error) {
	var partials []float64
	for i, v := range vals {
		if i%4096 == 4095 {
			if err := core.Interrupted(th); err != nil {
				return 0, err
			}
		}
		x, err := core.FloatArg(v)
		if err != nil {
			return 0, err
		}
		partials = pymath.FsumAdd(partials, x)
	}
	return pymath.SumPartials(partials), nil
}

// floatDiff is xi - xbar for a datum and a float mean, as Python
// computes it (a Decimal refuses a float).
func floatDiff(xi starlark.Value, mean float64) (float64, error) {
	if _, isNum := xi.(core.PyNumber); isNum && core.TypeName(xi) == "Decimal" {
		return 0, core.Errorf(pyexc.TypeError, "unsupported operand type(s) for -: 'decimal.Decimal' and 'float'")
	}
	f, err := core.FloatArg(xi)
	if err != nil {
		return 0, core.Errorf(pyexc.TypeError, "unsupported operand type(s) for -: '%s' and 'float'", core.TypeName(xi))
	}
	return f - mean, nil
}

// linearRegression is statistics.LinearRegression.
var linearRegression = func() starlark.Value {
	t, err := core.Namedtuple(nil, nil, starlark.Tuple{starlark.String("LinearRegression"), starlark.Tuple{starlark.String("slope"), starlark.String("intercept")}}, nil)
	if err != nil {
		panic(err)
	}
	return t
}()

func members() starlark.StringDict {
	oneArg := func(name string, f func(th *starlark.Thread, data starlark.Value) (starlark.Value, error)) *starlark.Builtin {
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var data starlark.Value
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &data); err != nil {
				return nil, err
			}
			return f(th, data)
		})
	}
	sortedData := func(th *starlark.Thread, data starlark.Value) ([]starlark.Value, error) {
		vals, err := core.Collect(th, data)
		if err != nil {
			return nil, err
		}
		s := append([]starlark.Value(nil), vals...)
		return s, core.SortValues(th, s, starlark.None, false)
	}
	spread := func(name string, sample, sqrt bool) *starlark.Builtin {
		param := "mu"
		if sample {
			param = "xbar"
		}
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var data, c starlark.Value = nil, starlark.None
			if err := starlark.UnpackArgs(name, args, kwargs, "data", &data, param+"?", &c); err != nil {
				return nil, err
			}
			s, nonfin, err := statSS(th, data, c)
			if err != nil {
				return nil, err
			}
			d := s.count
			if sample {
				if s.count < 2 {
					return nil, statErr("%s requires at least two data points", name)
				}
				d--
			} else if s.count < 1 {
				return nil, statErr("%s requires at least one data point", name)
			}
			if nonfin != nil && s.total == nil {
				if sqrt {
					return nil, core.Errorf(pyexc.AttributeError, "'%s' object has no attribute 'numerator'", core.TypeName(nonfin))
				}
				return core.PyArith(th, syntax.SLASH, nonfin, starlark.MakeInt(d))
			}
			if s.total == nil {
				return core.PyArith(th, syntax.SLASH, s.nonfin, starlark.MakeInt(d))
			}
			mss := new(big.Rat).Quo(s.total, new(big.Rat).SetInt64(int64(d)))
			if !sqrt {
				return s.typ.convert(th, mss)
			}
			if s.typ.name == "Decimal" {
				return pydecimal.DecimalSqrtOfFrac(th, s.typ.sample, mss)
			}
			f, err := floatSqrtOfFrac(mss.Num(), mss.Denom())
			return starlark.Float(f), err
		})
	}
	return starlark.StringDict{
		"mean": oneArg("mean", func(th *starlark.Thread, data starlark.Value) (starlark.Value, error) {
			s, err := sumTerms(th, data, nil)
			if err != nil {
				return nil, err
			}
			if s.count < 1 {
				return nil, statErr("mean requires at least one data point")
			}
			return s.divResult(th, new(big.Rat).SetInt64(int64(s.count)))
		}),
		"fmean": core.Fn("fmean", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
		}),
		"geometric_mean": oneArg("geometric_mean", func(th *starlark.Thread, data starlark.Value) (starlark.Value, error) {
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
		}),
		"harmonic_mean": core.Fn("harmonic_mean", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
		}),
		"median": oneArg("median", func(th *starlark.Thread, data starlark.Value) (starlark.Value, error) {
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
		}),
		"median_low": oneArg("median_low", func(th *starlark.Thread, data starlark.Value) (starlark.Value, error) {
			s, err := sortedData(th, data)
			if err != nil {
				return nil, err
			}
			if len(s) == 0 {
				return nil, statErr("no median for empty data")
			}
			return s[(len(s)-1)/2], nil
		}),
		"median_high": oneArg("median_high", func(th *starlark.Thread, data starlark.Value) (starlark.Value, error) {
			s, err := sortedData(th, data)
			if err != nil {
				return nil, err
			}
			if len(s) == 0 {
				return nil, statErr("no median for empty data")
			}
			return s[len(s)/2], nil
		}),
		"median_grouped": core.Fn("median_grouped", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
		}),
		"mode": oneArg("mode", func(th *starlark.Thread, data starlark.Value) (starlark.Value, error) {
			modes, err := modesOf(th, data)
			if err != nil {
				return nil, err
			}
			if len(modes) == 0 {
				return nil, statErr("no mode for empty data")
			}
			return modes[0], nil
		}),
		"multimode": oneArg("multimode", func(th *starlark.Thread, data starlark.Value) (starlark.Value, error) {
			modes, err := modesOf(th, data)
			if err != nil {
				return nil, err
			}
			return starlark.NewList(modes), nil
		}),
		"quantiles": core.Fn("quantiles", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
		}),
		"variance":  spread("variance", true, false),
		"pvariance": spread("pvariance", false, false),
		"stdev":     spread("stdev", true, true),
		"pstdev":    spread("pstdev", false, true),
		"covariance": core.Fn("covariance", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			x, y, xbar, ybar, err := pairedData(th, "covariance", args, kwargs)
			if err != nil {
				return nil, err
			}
			sxy, err := crossSum(th, x, y, xbar, ybar)
			if err != nil {
				return nil, err
			}
			return starlark.Float(sxy / float64(len(x)-1)), nil
		}),
		"correlation": core.Fn("correlation", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			x, y, xbar, ybar, err := pairedData(th, "correlation", args, kwargs)
			if err != nil {
				return nil, err
			}
			sxy, err := crossSum(th, x, y, xbar, ybar)
			if err != nil {
				return nil, err
			}
			sxx, err := crossSum(th, x, x, xbar, xbar)
			if err != nil {
				return nil, err
			}
			syy, err := crossSum(th, y, y, ybar, ybar)
			if err != nil {
				return nil, err
			}
			d := math.Sqrt(sxx * syy)
			if d == 0 {
				return nil, statErr("at least one of the inputs is constant")
			}
			return starlark.Float(sxy / d), nil
		}),
		"linear_regression": core.Fn("linear_regression", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var proportional starlark.Value = starlark.False
			var rest []starlark.Tuple
			for _, kv := range kwargs {
				if kv[0] == starlark.String("proportional") {
					proportional = kv[1]
				} else {
					rest = append(rest, kv)
				}
			}
			x, y, xbar, ybar, err := pairedData(th, "linear regression", args, rest)
			if err != nil {
				return nil, err
			}
			var sxy, sxx float64
			if proportional.Truth() {
				prod := func(a, b []starlark.Value) (float64, error) {
					ps := make([]starlark.Value, len(a))
					for i := range a {
						p, err := core.PyArith(th, syntax.STAR, a[i], b[i])
						if err != nil {
							return 0, err
						}
						ps[i] = p
					}
					return fsumValues(th, ps)
				}
				if sxy, err = prod(x, y); err != nil {
					return nil, err
				}
				if sxx, err = prod(x, x); err != nil {
					return nil, err
				}
			} else {
				if sxy, err = crossSum(th, x, y, xbar, ybar); err != nil {
					return nil, err
				}
				if sxx, err = crossSum(th, x, x, xbar, xbar); err != nil {
					return nil, err
				}
			}
			if sxx == 0 {
				return nil, statErr("x is constant")
			}
			slope := sxy / sxx
			intercept := 0.0
			if !proportional.Truth() {
				intercept = ybar - slope*xbar
			}
			return linearRegression.(*core.Type).CallInternal(th, nil, []starlark.Tuple{
				{starlark.String("slope"), starlark.Float(slope)}, {starlark.String("intercept"), starlark.Float(intercept)}})
		}),
	}
}

// pairedData reads the two samples of covariance, correlation and
// linear_regression and their fsum means.
func pairedData(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (x, y []starlark.Value, xbar, ybar float64, err error) {
	fname := map[string]string{"linear regression": "linear_regression"}[name]
	if fname == "" {
		fname = name
	}
	var xs, ys starlark.Value
	if err = starlark.UnpackPositionalArgs(fname, args, kwargs, 2, &xs, &ys); err != nil {
		return
	}
	if x, err = sizedData(th, xs); err != nil {
		return
	}
	if y, err = sizedData(th, ys); err != nil {
		return
	}
	if len(x) != len(y) {
		err = statErr("%s requires that both inputs have same number of data points", name)
		return
	}
	if len(x) < 2 {
		err = statErr("%s requires at least two data points", name)
		return
	}
	if xbar, err = fsumValues(th, x); err != nil {
		return
	}
	if ybar, err = fsumValues(th, y); err != nil {
		return
	}
	xbar /= float64(len(x))
	ybar /= float64(len(y))
	return
}

// crossSum is fsum((xi - xbar) * (yi - ybar) for xi, yi in zip(x, y)).
func crossSum(th *starlark.Thread, x, y []starlark.Value, xbar, ybar float64) (float64, error) {
	var partials []float64
	for i := range x {
		if i%4096 == 4095 {
			if err := core.Interrupted(th); err != nil {
				return 0, err
			}
		}
		dx, err := floatDiff(x[i], xbar)
		if err != nil {
			return 0, err
		}
		dy, err := floatDiff(y[i], ybar)
		if err != nil {
			return 0, err
		}
		partials = pymath.FsumAdd(partials, dx*dy)
	}
	return pymath.SumPartials(partials), nil
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

// Module returns a new statistics module.
func Module() *core.PyModule { return core.NewModule("statistics", members()) }
