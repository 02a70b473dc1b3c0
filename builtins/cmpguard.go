package builtins

import (
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Ordered comparison with a number literal. go.starlark.net orders values
// of different types only for int against float, and orders a float NaN
// above every number, so Decimal("2.5") > 0, True < 2 or an IntEnum
// member against an int would raise TypeError, and nan > 0 would be True.
//
// The front end lowers x < 2, where one operand is a number literal, to
// x in K, with K a comparison constant bound once in the module's prologue
// by K = __sa_cmpk("<", 2, False). Membership in K is the comparison, as
// CPython evaluates it (pyCompare): one operator, as cheap as Starlark's
// own <, instead of a helper call (see add.go).
const HelperCmpConst = "__sa_cmpk"

// cmpConsts makes the comparison constants of one executor. Each is made
// once per executor, so that a name the front end derives from the
// constant's content (pyfront.CmpConstPrefix) always holds the same
// object, chunk after chunk.
type cmpConsts map[cmpConstKey]*cmpConst

type cmpConstKey struct {
	op      syntax.Token
	litLeft bool
	lit     string // the literal's type and repr
}

// make is the builtin __sa_cmpk(op, literal, literal_on_the_left).
func (m cmpConsts) make(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var opName string
	var lit starlark.Value
	var litLeft bool
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 3, &opName, &lit, &litLeft); err != nil {
		return nil, err
	}
	op, ok := cmpOps[opName]
	if !ok || !isNumber(lit) {
		return nil, Errorf("TypeError", "misuse of %s", HelperCmpConst)
	}
	key := cmpConstKey{op, litLeft, lit.Type() + " " + lit.String()}
	k, ok := m[key]
	if !ok {
		k = &cmpConst{op: op, lit: lit, litLeft: litLeft}
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
}

func (k *cmpConst) String() string        { return "<comparison constant>" }
func (k *cmpConst) Type() string          { return "comparison_constant" }
func (k *cmpConst) Freeze()               {}
func (k *cmpConst) Truth() starlark.Bool  { return true }
func (k *cmpConst) Hash() (uint32, error) { return uint32(uintptrOf(k)), nil }

// Has reports x op lit, or lit op x.
func (k *cmpConst) Has(x starlark.Value) (bool, error) {
	a, b := x, k.lit
	if k.litLeft {
		a, b = b, a
	}
	if ai, ok := a.(starlark.Int); ok {
		if bi, ok := b.(starlark.Int); ok {
			c, err := ai.Cmp(bi, 1)
			return threeWay(k.op, c), err
		}
	}
	return pyCompare(k.op, a, b)
}
