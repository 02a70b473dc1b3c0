package statistics

import (
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// statistics, ported from CPython 3.11's statistics.py: sums of exact
// ratios converted back to the data's type (_sum, _ss, _convert),
// correctly rounded square roots, fsum-based fmean, covariance,
// correlation and linear_regression, and its error messages. NormalDist
// is not provided.

// dataFuncs are the module's functions of one argument, the data, bound
// by dataFn; memberFuncs the others.
var dataFuncs = map[string]func(th *starlark.Thread, data starlark.Value) (starlark.Value, error){
	"geometric_mean": geometricMean,
	"mean":           mean,
	"median":         median,
	"median_high":    medianHigh,
	"median_low":     medianLow,
	"mode":           mode,
	"multimode":      multimode,
}

var memberFuncs = map[string]core.BuiltinFn{
	"correlation":       correlation,
	"covariance":        covariance,
	"fmean":             fmean,
	"harmonic_mean":     harmonicMean,
	"linear_regression": linearRegression,
	"median_grouped":    medianGrouped,
	"pstdev":            pstdev,
	"pvariance":         pvariance,
	"quantiles":         quantiles,
	"stdev":             stdev,
	"variance":          variance,
}

func members() starlark.StringDict {
	m := starlark.StringDict{}
	for name, f := range dataFuncs {
		m[name] = dataFn(name, f)
	}
	for name, f := range memberFuncs {
		m[name] = core.Fn(name, f)
	}
	return m
}

// dataFn is function name of the data, its one positional argument.
func dataFn(name string, f func(th *starlark.Thread, data starlark.Value) (starlark.Value, error)) *starlark.Builtin {
	return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var data starlark.Value
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &data); err != nil {
			return nil, err
		}
		return f(th, data)
	})
}

func statErr(format string, args ...any) error {
	return core.Errorf(pyexc.StatisticsError, format, args...)
}

// Module returns a new statistics module.
func Module() *core.PyModule { return core.NewModule("statistics", members()) }
