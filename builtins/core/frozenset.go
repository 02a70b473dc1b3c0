package core

// Python's frozenset. go.starlark.net has no immutable set: a frozen
// *starlark.Set prints, compares and reports its type as a set and is not
// hashable, so a frozenset is a type of its own here, wrapping a frozen
// set. Its elements are laid out once in CPython's iteration order (see
// setOrder), since they never change.

import (
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// FrozenSet is an immutable, hashable set: Python's frozenset.
type FrozenSet struct {
	set   *starlark.Set    // frozen; lookups, comparisons and set operations
	elems []starlark.Value // the elements in CPython's iteration order
}

var (
	_ starlark.Sequence   = (*FrozenSet)(nil)
	_ starlark.Container  = (*FrozenSet)(nil)
	_ starlark.Comparable = (*FrozenSet)(nil)
	_ starlark.HasBinary  = (*FrozenSet)(nil)
	_ starlark.HasAttrs   = (*FrozenSet)(nil)
	_ Typed               = (*FrozenSet)(nil)
)

// NewFrozenSet returns the frozenset of the elements of s, which it
// freezes and keeps: the caller must not use s afterwards.
func NewFrozenSet(s *starlark.Set) *FrozenSet {
	s.Freeze()
	return &FrozenSet{set: s, elems: setElements(s)}
}

// Elements returns the elements in the order Python iterates them. The
// slice is shared: callers must not modify it.
func (fs *FrozenSet) Elements() []starlark.Value { return fs.elems }

func (fs *FrozenSet) String() string         { return Repr(fs) }
func (fs *FrozenSet) Type() string           { return "frozenset" }
func (fs *FrozenSet) PyType() starlark.Value { return TypeFrozenSet }
func (fs *FrozenSet) Freeze()                {} // frozen when made
func (fs *FrozenSet) Truth() starlark.Bool   { return fs.set.Len() > 0 }
func (fs *FrozenSet) Len() int               { return fs.set.Len() }

// Hash combines the elements' hashes independently of their order, as
// CPython's frozenset hash does, so that equal frozensets hash equal.
func (fs *FrozenSet) Hash() (uint32, error) {
	h := uint32(1927868237) * uint32(fs.set.Len()+1)
	for x := range fs.set.Elements() {
		eh, err := x.Hash()
		if err != nil {
			return 0, err
		}
		h ^= (eh ^ eh<<16 ^ 89869747) * 3644798167
	}
	return h*69069 + 907133923, nil
}

func (fs *FrozenSet) Iterate() starlark.Iterator { return &frozenSetIterator{elems: fs.elems} }

type frozenSetIterator struct{ elems []starlark.Value }

func (it *frozenSetIterator) Next(p *starlark.Value) bool {
	if len(it.elems) == 0 {
		return false
	}
	*p, it.elems = it.elems[0], it.elems[1:]
	return true
}

func (it *frozenSetIterator) Done() {}

// Has is x in fs. As in CPython, a set is looked up as the frozenset of
// its elements.
func (fs *FrozenSet) Has(x starlark.Value) (bool, error) {
	if s, ok := x.(*starlark.Set); ok {
		x = &FrozenSet{set: s} // only hashed and compared, never kept
	}
	found, err := fs.set.Has(x)
	if err != nil {
		return false, Unhashable(x, err)
	}
	return found, nil
}

// CompareSameType compares two frozensets: == by elements, < and <= as
// proper subset and subset, > and >= as superset.
func (fs *FrozenSet) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	return starlark.CompareDepth(op, fs.set, y.(*FrozenSet).set, depth)
}

// Binary is |, &, - and ^ with another frozenset or a set. The result has
// the type of the left operand, as in CPython: frozenset | set is a
// frozenset, set | frozenset a set.
func (fs *FrozenSet) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	switch op {
	case syntax.PIPE, syntax.AMP, syntax.MINUS, syntax.CIRCUMFLEX:
	default:
		return nil, nil
	}
	other, ok := AsSet(y)
	if !ok {
		return nil, nil
	}
	x := fs.set
	if side == starlark.Right {
		x, other = other, x
	}
	z, err := starlark.Binary(op, x, other)
	if err != nil {
		return nil, err
	}
	if _, leftIsSet := y.(*starlark.Set); leftIsSet && side == starlark.Right {
		return z, nil
	}
	return NewFrozenSet(z.(*starlark.Set)), nil
}

// AsSet returns the elements of a set or a frozenset as a set.
func AsSet(v starlark.Value) (*starlark.Set, bool) {
	switch v := v.(type) {
	case *starlark.Set:
		return v, true
	case *FrozenSet:
		return v.set, true
	}
	return nil, false
}

// frozenSetEqual is x == y when one is a frozenset and the other a set or
// a frozenset, which Python compares by elements; ok is false for other
// operands.
func frozenSetEqual(x, y starlark.Value) (eq, ok bool, err error) {
	_, xf := x.(*FrozenSet)
	_, yf := y.(*FrozenSet)
	a, aok := AsSet(x)
	b, bok := AsSet(y)
	if !(xf || yf) || !aok || !bok {
		return false, false, nil
	}
	eq, err = starlark.Equal(a, b)
	return eq, true, err
}

func (fs *FrozenSet) Attr(name string) (starlark.Value, error) {
	if m, ok := frozensetMethods[name]; ok {
		return m.BindReceiver(fs), nil
	}
	return nil, nil
}

func (fs *FrozenSet) AttrNames() []string {
	names := make([]string, 0, len(frozensetMethods))
	for k := range frozensetMethods {
		names = append(names, k)
	}
	return names
}

// SizeOf lets the engine's memory walk count the elements.
func (fs *FrozenSet) SizeOf(visit func(starlark.Value)) int64 {
	for _, x := range fs.elems {
		visit(x)
	}
	return objectBytes + int64(len(fs.elems))*(dictEntryBytes+ElemSize)
}

var TypeFrozenSet = &Type{PyName: "frozenset", Base: TypeObject, New: newFrozenSet}

func newFrozenSet(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf(pyexc.TypeError, "frozenset() takes no keyword arguments")
	}
	if len(args) > 1 {
		return nil, Errorf(pyexc.TypeError, "frozenset expected at most 1 argument, got %d", len(args))
	}
	var it starlark.Value = starlark.Tuple{}
	if len(args) == 1 {
		it = args[0]
	}
	if fs, ok := it.(*FrozenSet); ok {
		return fs, nil // immutable: CPython returns the argument itself
	}
	return frozenSetOf(th, it)
}

// frozenSetOf builds a frozenset from any iterable, charging the budget.
func frozenSetOf(th *starlark.Thread, it starlark.Value) (*FrozenSet, error) {
	s, err := newSet(th, it)
	if err != nil {
		return nil, err
	}
	if err := Alloc(th, int64(s.Len())*ElemSize); err != nil {
		return nil, err
	}
	return NewFrozenSet(s), nil
}

// frozensetMethods are the set's methods that do not mutate. They run the
// set's own on the frozenset's elements (setMethods is looked up at call
// time: it is filled by another file's init).
var frozensetMethods = map[string]*starlark.Builtin{}

func init() {
	TypeFrozenSet.methods = frozensetMethods
	def(frozensetMethods, "copy", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs("copy", args, kwargs, 0); err != nil {
			return nil, err
		}
		return fn.Receiver(), nil // immutable: CPython returns the frozenset itself
	})
	for _, name := range []string{"union", "intersection", "difference", "symmetric_difference"} {
		def(frozensetMethods, name, func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(kwargs) > 0 {
				return nil, Errorf(pyexc.TypeError, "frozenset.%s() takes no keyword arguments", name)
			}
			if name == "symmetric_difference" && len(args) != 1 {
				return nil, Errorf(pyexc.TypeError, "frozenset.%s() takes exactly one argument (%d given)", name, len(args))
			}
			z, err := callSetMethod(th, fn, name, args)
			if err != nil {
				return nil, err
			}
			s := z.(*starlark.Set)
			if err := Alloc(th, int64(s.Len())*ElemSize); err != nil {
				return nil, err
			}
			return NewFrozenSet(s), nil
		})
	}
	for _, name := range []string{"issubset", "issuperset", "isdisjoint"} {
		def(frozensetMethods, name, func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(kwargs) > 0 {
				return nil, Errorf(pyexc.TypeError, "frozenset.%s() takes no keyword arguments", name)
			}
			if len(args) != 1 {
				return nil, Errorf(pyexc.TypeError, "frozenset.%s() takes exactly one argument (%d given)", name, len(args))
			}
			return callSetMethod(th, fn, name, args)
		})
	}
}

// callSetMethod calls set method name on the elements of fn's receiver,
// a frozenset; the non-mutating methods leave the frozen set unchanged.
func callSetMethod(th *starlark.Thread, fn *starlark.Builtin, name string, args starlark.Tuple) (starlark.Value, error) {
	fs := fn.Receiver().(*FrozenSet)
	return setMethods[name].BindReceiver(fs.set).CallInternal(th, args, nil)
}
