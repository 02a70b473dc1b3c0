package statistics

import (
	"math/big"

	"github.com/star-agent/star-agent/builtins/core"
	pydecimal "github.com/star-agent/star-agent/builtins/lib/decimal"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// The measures of spread: variance and standard deviation, of a sample
// or of a population.

func variance(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return spread(th, fn.Name(), true, false, args, kwargs)
}

func pvariance(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return spread(th, fn.Name(), false, false, args, kwargs)
}

func stdev(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return spread(th, fn.Name(), true, true, args, kwargs)
}

func pstdev(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return spread(th, fn.Name(), false, true, args, kwargs)
}

// spread is variance (of a sample) or pvariance (of a population), or
// their square roots when sqrt is set.
func spread(th *starlark.Thread, name string, sample, sqrt bool, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	param := "mu"
	if sample {
		param = "xbar"
	}
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
}
