package statistics

import (
	"math"

	"github.com/star-agent/star-agent/builtins/core"
	pymath "github.com/star-agent/star-agent/builtins/lib/math"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// The relations of two samples: covariance, correlation and linear
// regression.

// linearRegressionType is statistics.LinearRegression.
var linearRegressionType = func() starlark.Value {
	t, err := core.Namedtuple(nil, nil, starlark.Tuple{starlark.String("LinearRegression"), starlark.Tuple{starlark.String("slope"), starlark.String("intercept")}}, nil)
	if err != nil {
		panic(err)
	}
	return t
}()

func covariance(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, y, xbar, ybar, err := pairedData(th, "covariance", args, kwargs)
	if err != nil {
		return nil, err
	}
	sxy, err := crossSum(th, x, y, xbar, ybar)
	if err != nil {
		return nil, err
	}
	return starlark.Float(sxy / float64(len(x)-1)), nil
}

func correlation(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
}

func linearRegression(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
	return linearRegressionType.(*core.Type).CallInternal(th, nil, []starlark.Tuple{
		{starlark.String("slope"), starlark.Float(slope)}, {starlark.String("intercept"), starlark.Float(intercept)}})
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
