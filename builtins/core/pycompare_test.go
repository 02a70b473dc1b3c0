package core

import (
	"testing"

	"github.com/star-agent/star-agent/vm/starlark"
)

// subDict stands for a dict of a collections type (Counter, defaultdict,
// OrderedDict), which builtins/lib/collections implements the same way:
// a dict whose type derives from dict.
type subDict struct {
	*starlark.Dict
	typ *Type
}

func (d *subDict) Type() string           { return d.typ.PyName }
func (d *subDict) PyType() starlark.Value { return d.typ }

// TestContainerEqual checks the pairs of types that CPython compares by
// content; each case notes the CPython 3.11 expression and its value.
func TestContainerEqual(t *testing.T) {
	dict := func(kv ...starlark.Value) *starlark.Dict {
		d := starlark.NewDict(len(kv) / 2)
		for i := 0; i < len(kv); i += 2 {
			if err := d.SetKey(kv[i], kv[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	counterType := &Type{PyName: "Counter", Base: TypeDict}
	orderedType := &Type{PyName: "collections.OrderedDict", Base: TypeDict}
	sub := func(typ *Type, d *starlark.Dict) *subDict { return &subDict{Dict: d, typ: typ} }
	set := func(vs ...starlark.Value) *starlark.Set {
		s := starlark.NewSet(len(vs))
		for _, v := range vs {
			if err := s.Insert(v); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	a, b := starlark.String("a"), starlark.String("b")
	one, two := starlark.MakeInt(1), starlark.MakeInt(2)
	d := dict(a, one)
	keys := &dictView{d: d, kind: "keys"}
	items := &dictView{d: d, kind: "items"}
	values := &dictView{d: d, kind: "values"}
	for _, c := range []struct {
		expr string // in CPython 3.11
		x, y starlark.Value
		eq   bool
	}{
		{"Counter(a=1) == {'a': 1}", sub(counterType, dict(a, one)), dict(a, one), true},
		{"{'a': 1} == Counter(a=1)", dict(a, one), sub(counterType, dict(a, one)), true},
		{"Counter(a=1) == {'a': 2}", sub(counterType, dict(a, one)), dict(a, two), false},
		{"Counter(a=1) == {'b': 1}", sub(counterType, dict(a, one)), dict(b, one), false},
		{"Counter(a=1, b=2) == {'a': 1}", sub(counterType, dict(a, one, b, two)), dict(a, one), false},
		{"OrderedDict(a=1) == Counter(a=1)", sub(orderedType, dict(a, one)), sub(counterType, dict(a, one)), true},
		{"{'a': 1.0} == Counter(a=True)", dict(a, starlark.Float(1)), sub(counterType, dict(a, starlark.True)), true},
		{"d.keys() == {'a'}", keys, set(a), true},
		{"{'a'} == d.keys()", set(a), keys, true},
		{"d.keys() == frozenset({'a'})", keys, NewFrozenSet(set(a)), true},
		{"d.keys() == {'b'}", keys, set(b), false},
		{"d.items() == {('a', 1)}", items, set(starlark.Tuple{a, one}), true},
		{"d.items() == d.keys()", items, keys, false},
		{"d.values() == {1}", values, set(one), false},
		{"d.keys() == ['a']", keys, starlark.NewList([]starlark.Value{a}), false},
	} {
		var e pyEq
		eq, ok, err := e.containers(c.x, c.y, 0)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if !ok {
			// Left to go.starlark.net, which finds values of different
			// types unequal.
			eq = false
		}
		if eq != c.eq {
			t.Errorf("%s: got %v, want %v (CPython)", c.expr, eq, c.eq)
		}
	}
}
