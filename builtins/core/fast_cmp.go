package core

import (
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// CmpGuard is the value a front end may bind to the helpers of the
// ordered comparisons (<, <=, >, >=) of two operands that are not
// literals: guard[x][y] is x op y as CPython evaluates it. go.starlark.net
// orders a float NaN above every number and equal to itself (nan >= nan
// is True there, False in Python), and does not order a bool against an
// int; PyCompare does both as CPython. Like the plus guard it is an
// operator rather than a call: an int on the left is wrapped without
// allocating, and two ints of 64 bits compare without allocating either.
type CmpGuard struct {
	Op  syntax.Token // syntax.LT, LE, GT or GE
	Box *ThreadBox   // the executor's, if any: the thread whose deadline a long comparison honours
}

func (g *CmpGuard) String() string        { return "<comparison guard>" }
func (g *CmpGuard) Type() string          { return "comparison_guard" }
func (g *CmpGuard) Freeze()               {}
func (g *CmpGuard) Truth() starlark.Bool  { return true }
func (g *CmpGuard) Hash() (uint32, error) { return uint32(UintptrOf(g)), nil }

// Get wraps the left operand.
func (g *CmpGuard) Get(x starlark.Value) (starlark.Value, bool, error) {
	if i, ok := x.(starlark.Int); ok {
		switch g.Op {
		case syntax.LT:
			return cmpInt[ltTag](i), true, nil
		case syntax.LE:
			return cmpInt[leTag](i), true, nil
		case syntax.GT:
			return cmpInt[gtTag](i), true, nil
		case syntax.GE:
			return cmpInt[geTag](i), true, nil
		}
	}
	return &cmpOperand{x: x, op: g.Op, box: g.Box}, true, nil
}

// The comparisons, as types, so that an int operand carries its
// comparison in its type rather than in a field.
type (
	ltTag struct{}
	leTag struct{}
	gtTag struct{}
	geTag struct{}
)

func (ltTag) op() syntax.Token { return syntax.LT }
func (leTag) op() syntax.Token { return syntax.LE }
func (gtTag) op() syntax.Token { return syntax.GT }
func (geTag) op() syntax.Token { return syntax.GE }

type cmpTag interface{ op() syntax.Token }

// cmpInt is an int on the left of a guarded comparison, with
// starlark.Int's representation.
type cmpInt[T cmpTag] starlark.Int

func (p cmpInt[T]) String() string        { return starlark.Int(p).String() }
func (p cmpInt[T]) Type() string          { return "int" }
func (p cmpInt[T]) Freeze()               {}
func (p cmpInt[T]) Truth() starlark.Bool  { return starlark.Int(p).Truth() }
func (p cmpInt[T]) Hash() (uint32, error) { return starlark.Int(p).Hash() }

// Get is the int op y.
func (p cmpInt[T]) Get(y starlark.Value) (starlark.Value, bool, error) {
	var t T
	x := starlark.Int(p)
	if b, ok := y.(starlark.Int); ok {
		if a, ok := x.Int64(); ok {
			if b, ok := b.Int64(); ok {
				return starlark.Bool(ThreeWay(t.op(), cmp3(a, b))), true, nil
			}
		}
	}
	r, err := PyCompare(t.op(), x, y)
	return starlark.Bool(r), true, err
}

// cmpOperand is any other value on the left of a guarded comparison.
type cmpOperand struct {
	x   starlark.Value
	op  syntax.Token
	box *ThreadBox
}

func (p *cmpOperand) String() string       { return p.x.String() }
func (p *cmpOperand) Type() string         { return p.x.Type() }
func (p *cmpOperand) Freeze()              {}
func (p *cmpOperand) Truth() starlark.Bool { return p.x.Truth() }
func (p *cmpOperand) Hash() (uint32, error) {
	return 0, Errorf(pyexc.TypeError, "unhashable type: '%s'", p.x.Type())
}

// Get is x op y.
func (p *cmpOperand) Get(y starlark.Value) (starlark.Value, bool, error) {
	var th *starlark.Thread
	if _, isSeq := p.x.(starlark.Indexable); isSeq && p.box != nil {
		th = p.box.current() // a comparison of sequences may be long
	}
	r, err := PyCompareOn(th, p.op, p.x, y)
	return starlark.Bool(r), true, err
}
