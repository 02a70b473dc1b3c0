package core

import (
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// CmpConsts makes the comparison constants of one executor. Each is made
// once per executor, so that a name the front end derives from the
// constant's content (pyfront.CmpConstPrefix) always holds the same
// object, chunk after chunk.
type CmpConsts map[cmpConstKey]*cmpConst

type cmpConstKey struct {
	op      syntax.Token
	litLeft bool
	lit     string // the literal's type and repr
}

// Make is the builtin __sa_cmpk(op, literal, literal_on_the_left).
func (m CmpConsts) Make(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var opName string
	var lit starlark.Value
	var litLeft bool
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 3, &opName, &lit, &litLeft); err != nil {
		return nil, err
	}
	op, ok := cmpOps[opName]
	if !ok || !isNumber(lit) {
		return nil, Errorf(pyexc.TypeError, "misuse of %s", contract.HelperCmpConst)
	}
	key := cmpConstKey{op, litLeft, lit.Type() + " " + lit.String()}
	k, ok := m[key]
	if !ok {
		k = &cmpConst{op: op, lit: lit, litLeft: litLeft}
		switch n := lit.(type) {
		case starlark.Int:
			if v, ok := n.Int64(); ok && v >= -maxExactFloatInt && v <= maxExactFloatInt {
				k.num, k.isInt, k.litInt = float64(v), true, v
			}
		case starlark.Float:
			k.num, k.isFloat = float64(n), true
		}
		m[key] = k
	}
	return k, nil
}

var cmpOps = map[string]syntax.Token{"<": syntax.LT, "<=": syntax.LE, ">": syntax.GT, ">=": syntax.GE}

// cmpConst is the comparison op with the number lit on one side.
type cmpConst struct {
	op      syntax.Token
	lit     starlark.Value
	litLeft bool
	// A literal that a float represents exactly (every float, an int of
	// at most 53 bits) is also held as one, and as an int64 when it is an
	// int: the common comparisons then need no dispatch.
	isInt, isFloat bool
	litInt         int64
	num            float64
}

func (k *cmpConst) String() string        { return "<comparison constant>" }
func (k *cmpConst) Type() string          { return "comparison_constant" }
func (k *cmpConst) Freeze()               {}
func (k *cmpConst) Truth() starlark.Bool  { return true }
func (k *cmpConst) Hash() (uint32, error) { return uint32(UintptrOf(k)), nil }

// Has reports x op lit, or lit op x.
func (k *cmpConst) Has(x starlark.Value) (bool, error) {
	switch v := x.(type) {
	case starlark.Int:
		if k.isInt {
			if a, ok := v.Int64(); ok {
				return k.order(cmp3(a, k.litInt)), nil
			}
		} else if k.isFloat {
			if a, ok := v.Int64(); ok && a >= -maxExactFloatInt && a <= maxExactFloatInt {
				return k.orderFloat(float64(a)), nil
			}
		}
	case starlark.Float:
		if k.isInt || k.isFloat {
			return k.orderFloat(float64(v)), nil
		}
	}
	a, b := x, k.lit
	if k.litLeft {
		a, b = b, a
	}
	if ai, ok := a.(starlark.Int); ok {
		if bi, ok := b.(starlark.Int); ok {
			c, err := ai.Cmp(bi, 1)
			return ThreeWay(k.op, c), err
		}
	}
	return PyCompare(k.op, a, b)
}

func cmp3[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// order is x op lit (or lit op x) for c, the three-way comparison of x
// with lit.
func (k *cmpConst) order(c int) bool {
	if k.litLeft {
		c = -c
	}
	return ThreeWay(k.op, c)
}

// orderFloat is x op lit (or lit op x) for a float x: false when x or the
// literal is a NaN, as in Python.
func (k *cmpConst) orderFloat(x float64) bool {
	if x != x || k.num != k.num {
		return false
	}
	return k.order(cmp3(x, k.num))
}
