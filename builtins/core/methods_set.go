package core

import (
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// The methods of set. The operators taking any number of iterables share
// setOperation, the predicates setPredicate.

var setMethodFuncs = map[string]BuiltinFn{
	"add":                         setAdd,
	"clear":                       setClear,
	"copy":                        setCopy,
	"difference":                  setDifference,
	"difference_update":           setDifferenceUpdate,
	"discard":                     setDiscard,
	"intersection":                setIntersection,
	"intersection_update":         setIntersectionUpdate,
	"isdisjoint":                  setIsdisjoint,
	"issubset":                    setIssubset,
	"issuperset":                  setIssuperset,
	"pop":                         setPop,
	"remove":                      setRemove,
	"symmetric_difference":        setSymmetricDifference,
	"symmetric_difference_update": setSymmetricDifferenceUpdate,
	"union":                       setUnion,
	"update":                      setUpdate,
}

func setAdd(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgs("add", args, kwargs, 1, &x); err != nil {
		return nil, err
	}
	return starlark.None, fn.Receiver().(*starlark.Set).InsertOn(th, x)
}

func setClear(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return starlark.None, fn.Receiver().(*starlark.Set).Clear()
}

func setCopy(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return newSet(th, fn.Receiver())
}

func setDiscard(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgs("discard", args, kwargs, 1, &x); err != nil {
		return nil, err
	}
	_, err := fn.Receiver().(*starlark.Set).DeleteOn(th, x)
	return starlark.None, err
}

func setRemove(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgs("remove", args, kwargs, 1, &x); err != nil {
		return nil, err
	}
	found, err := fn.Receiver().(*starlark.Set).DeleteOn(th, x)
	if err == nil && !found {
		r, _ := ReprValue(th, x)
		return nil, KeyError(x, r)
	}
	return starlark.None, err
}

func setPop(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	s := fn.Receiver().(*starlark.Set)
	if s.Len() == 0 {
		return nil, Errorf(pyexc.KeyError, "'pop from an empty set'")
	}
	// CPython pops from the start of its table (see setOrder).
	first := setElements(s)[0]
	_, err := s.Delete(first)
	return first, err
}

func setUnion(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return setOperation(th, fn, args, kwargs, false, unionInto)
}

func setUpdate(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return setOperation(th, fn, args, kwargs, true, unionInto)
}

func setIntersection(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return setOperation(th, fn, args, kwargs, false, intersect)
}

func setIntersectionUpdate(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return setOperation(th, fn, args, kwargs, true, intersect)
}

func setDifference(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return setOperation(th, fn, args, kwargs, false, difference)
}

func setDifferenceUpdate(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return setOperation(th, fn, args, kwargs, true, difference)
}

func setSymmetricDifference(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return setOperation(th, fn, args, kwargs, false, symmetricDifference)
}

func setSymmetricDifferenceUpdate(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return setOperation(th, fn, args, kwargs, true, symmetricDifference)
}

// setOperation is set method fn.Name(): op folds each argument, as a
// set, into a copy of the receiver, or into the receiver itself when
// update is set.
func setOperation(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, update bool, op func(th *starlark.Thread, acc, other *starlark.Set) (*starlark.Set, error)) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf(pyexc.TypeError, "set.%s() takes no keyword arguments", fn.Name())
	}
	self := fn.Receiver().(*starlark.Set)
	acc := self
	if !update {
		c, err := newSet(th, self)
		if err != nil {
			return nil, err
		}
		acc = c
	}
	for _, a := range args {
		other, err := newSet(th, a)
		if err != nil {
			return nil, err
		}
		if acc, err = op(th, acc, other); err != nil {
			return nil, err
		}
	}
	if update {
		if acc != self {
			if err := self.Clear(); err != nil {
				return nil, err
			}
			for x := range acc.Elements() {
				self.Insert(x)
			}
		}
		return starlark.None, nil
	}
	return acc, nil
}

func unionInto(th *starlark.Thread, acc, other *starlark.Set) (*starlark.Set, error) {
	for x := range other.Elements() {
		if err := acc.Insert(x); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

func intersect(th *starlark.Thread, acc, other *starlark.Set) (*starlark.Set, error) {
	out := starlark.NewSet(0)
	for x := range acc.Elements() {
		if ok, _ := other.Has(x); ok {
			out.Insert(x)
		}
	}
	return out, nil
}

func difference(th *starlark.Thread, acc, other *starlark.Set) (*starlark.Set, error) {
	out := starlark.NewSet(0)
	for x := range acc.Elements() {
		if ok, _ := other.Has(x); !ok {
			out.Insert(x)
		}
	}
	return out, nil
}

func symmetricDifference(th *starlark.Thread, acc, other *starlark.Set) (*starlark.Set, error) {
	out, _ := difference(th, acc, other)
	for x := range other.Elements() {
		if ok, _ := acc.Has(x); !ok {
			out.Insert(x)
		}
	}
	return out, nil
}

func setIssubset(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return setPredicate(th, fn, args, kwargs, isSubset)
}

func setIssuperset(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return setPredicate(th, fn, args, kwargs, func(a, b *starlark.Set) bool { return isSubset(b, a) })
}

func setIsdisjoint(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return setPredicate(th, fn, args, kwargs, isDisjoint)
}

// setPredicate is set method fn.Name(), pred of the receiver and its
// argument as a set.
func setPredicate(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, pred func(self, other *starlark.Set) bool) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &x); err != nil {
		return nil, err
	}
	other, err := newSet(th, x)
	if err != nil {
		return nil, err
	}
	return starlark.Bool(pred(fn.Receiver().(*starlark.Set), other)), nil
}

func isSubset(a, b *starlark.Set) bool {
	for x := range a.Elements() {
		if ok, _ := b.Has(x); !ok {
			return false
		}
	}
	return true
}

func isDisjoint(a, b *starlark.Set) bool {
	for x := range a.Elements() {
		if ok, _ := b.Has(x); ok {
			return false
		}
	}
	return true
}

// newSet builds a set from any iterable, charging the budget.
func newSet(th *starlark.Thread, it starlark.Value) (*starlark.Set, error) {
	vals, err := Collect(th, it)
	if err != nil {
		return nil, err
	}
	if err := Alloc(th, int64(len(vals))*DictEntrySize); err != nil {
		return nil, err
	}
	s := starlark.NewSet(len(vals))
	for _, v := range vals {
		if err := s.InsertOn(th, v); err != nil {
			return nil, Unhashable(v, err)
		}
	}
	return s, nil
}
