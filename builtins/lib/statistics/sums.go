package statistics

import (
	"math"
	"math/big"
	"strings"

	"github.com/star-agent/star-agent/builtins/core"
	pymath "github.com/star-agent/star-agent/builtins/lib/math"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// The exact sums statistics computes with and their conversion back to
// the data's type.

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
