package core

import (
	"errors"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// The methods of dict and its views.

var dictMethodFuncs = map[string]BuiltinFn{
	"clear": dictClear,
	"copy":  dictCopy,
	// d.fromkeys(...) is the class method called through an instance: the
	// receiver plays no part.
	"fromkeys":   dictFromkeys,
	"get":        dictDelegate,
	"items":      dictViewMethod,
	"keys":       dictViewMethod,
	"pop":        dictPop,
	"popitem":    dictPopitem,
	"setdefault": dictDelegate,
	"update":     dictUpdateMethod,
	"values":     dictViewMethod,
}

// dictDelegate is dict.get and dict.setdefault: go.starlark.net's own
// method of the same name.
func dictDelegate(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m, err := fn.Receiver().(*starlark.Dict).Attr(fn.Name())
	if err != nil {
		return nil, err
	}
	return starlark.Call(th, m, args, kwargs)
}

func dictClear(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackPositionalArgs("clear", args, kwargs, 0); err != nil {
		return nil, err
	}
	return starlark.None, fn.Receiver().(*starlark.Dict).Clear()
}

func dictCopy(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackPositionalArgs("copy", args, kwargs, 0); err != nil {
		return nil, err
	}
	return CopyDict(th, fn.Receiver().(*starlark.Dict))
}

// dictViewMethod is dict.keys, dict.values and dict.items: the view's
// kind is the method's name.
func dictViewMethod(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	kind := fn.Name()
	if err := starlark.UnpackPositionalArgs(kind, args, kwargs, 0); err != nil {
		return nil, err
	}
	return &dictView{d: fn.Receiver().(*starlark.Dict), kind: kind}, nil
}

func dictPop(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var k, dflt starlark.Value
	if err := starlark.UnpackPositionalArgs("pop", args, kwargs, 1, &k, &dflt); err != nil {
		return nil, err
	}
	v, found, err := fn.Receiver().(*starlark.Dict).DeleteOn(th, k)
	if err != nil {
		return nil, err
	}
	if !found {
		if dflt != nil {
			return dflt, nil
		}
		r, _ := ReprValue(th, k)
		return nil, KeyError(k, r)
	}
	return v, nil
}

func dictPopitem(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackPositionalArgs("popitem", args, kwargs, 0); err != nil {
		return nil, err
	}
	d := fn.Receiver().(*starlark.Dict)
	if d.Len() == 0 {
		return nil, Errorf(pyexc.KeyError, "'popitem(): dictionary is empty'")
	}
	var lastK starlark.Value
	for k := range d.Entries() {
		lastK = k
	}
	v, _, err := d.Delete(lastK)
	if err != nil {
		return nil, err
	}
	return starlark.Tuple{lastK, v}, nil
}

func dictFromkeys(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	var v starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs("fromkeys", args, kwargs, 1, &it, &v); err != nil {
		return nil, err
	}
	keys, err := Collect(th, it)
	if err != nil {
		return nil, err
	}
	if err := Alloc(th, int64(len(keys))*DictEntrySize); err != nil {
		return nil, err
	}
	d := starlark.NewDict(len(keys))
	for _, k := range keys {
		if err := d.SetKey(k, v); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func CopyDict(th *starlark.Thread, d *starlark.Dict) (*starlark.Dict, error) {
	if err := Alloc(th, int64(d.Len())*DictEntrySize); err != nil {
		return nil, err
	}
	out := starlark.NewDict(d.Len())
	for k, v := range d.Entries() {
		out.SetKey(k, v)
	}
	return out, nil
}

// dictView is what dict.keys(), values() and items() return: a live,
// sized, iterable view printed as CPython prints it.
type dictView struct {
	d    *starlark.Dict
	kind string // "keys", "values", "items"
}

var (
	_ starlark.Sequence  = (*dictView)(nil)
	_ starlark.Container = (*dictView)(nil)
	_ starlark.HasBinary = (*dictView)(nil)
	_ Representer        = (*dictView)(nil)
)

func (v *dictView) String() string       { return Repr(v) }
func (v *dictView) Type() string         { return "dict_" + v.kind }
func (v *dictView) Freeze()              { v.d.Freeze() }
func (v *dictView) Truth() starlark.Bool { return v.d.Len() > 0 }
func (v *dictView) Hash() (uint32, error) {
	return 0, Errorf(pyexc.TypeError, "unhashable type: 'dict_%s'", v.kind)
}
func (v *dictView) Len() int { return v.d.Len() }

// CompareSameType compares two views: keys and items views as sets
// (== and the subset orders), values views by identity, as in CPython.
func (v *dictView) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	w := y.(*dictView)
	if v.kind == "values" || w.kind == "values" {
		switch op {
		case syntax.EQL:
			return v == w, nil
		case syntax.NEQ:
			return v != w, nil
		}
		return false, Errorf(pyexc.TypeError, "'%s' not supported between instances of '%s' and '%s'", op, v.Type(), w.Type())
	}
	a, err := newSet(nil, v)
	if err != nil {
		return false, err
	}
	b, err := newSet(nil, w)
	if err != nil {
		return false, err
	}
	return starlark.CompareDepth(op, a, b, depth)
}

// PyType gives each view kind its own type object.
func (v *dictView) PyType() starlark.Value { return IterType("dict_" + v.kind) }

func (v *dictView) Iterate() starlark.Iterator {
	return &viewIter{v: v, keys: v.d.Iterate()}
}

type viewIter struct {
	v    *dictView
	keys starlark.Iterator
}

func (it *viewIter) Next(p *starlark.Value) bool {
	var k starlark.Value
	if !it.keys.Next(&k) {
		return false
	}
	switch it.v.kind {
	case "keys":
		*p = k
	case "values":
		*p, _, _ = it.v.d.Get(k)
	default:
		val, _, _ := it.v.d.Get(k)
		*p = starlark.Tuple{k, val}
	}
	return true
}

func (it *viewIter) Done() { it.keys.Done() }

func (v *dictView) Has(x starlark.Value) (bool, error) {
	switch v.kind {
	case "keys":
		_, found, err := v.d.Get(x)
		return found, err
	case "items":
		t, ok := x.(starlark.Tuple)
		if !ok || len(t) != 2 {
			return false, nil
		}
		val, found, err := v.d.Get(t[0])
		if err != nil || !found {
			return false, err
		}
		return Equal(val, t[1])
	}
	for _, e := range v.d.Items() {
		if eq, err := Equal(e[1], x); err != nil || eq {
			return eq, err
		}
	}
	return false, nil
}

// errStopForEach ends a ForEach early: the answer is known.
var errStopForEach = errors.New("stop")

// Attr is isdisjoint, the one method of keys and items views.
func (v *dictView) Attr(name string) (starlark.Value, error) {
	if name != "isdisjoint" || v.kind == "values" {
		return nil, nil
	}
	return starlark.NewBuiltin("isdisjoint", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var other starlark.Value
		if err := starlark.UnpackPositionalArgs("isdisjoint", args, kwargs, 1, &other); err != nil {
			return nil, err
		}
		disjoint := true
		err := ForEach(th, other, func(x starlark.Value) error {
			in, err := v.Has(x)
			if err == nil && in {
				disjoint = false
				return errStopForEach
			}
			return err
		})
		if err != nil && err != errStopForEach {
			return nil, err
		}
		return starlark.Bool(disjoint), nil
	}), nil
}

// AttrNames lists isdisjoint for keys and items views.
func (v *dictView) AttrNames() []string {
	if v.kind == "values" {
		return nil
	}
	return []string{"isdisjoint"}
}

// Binary gives keys and items views the set operators.
func (v *dictView) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	if v.kind == "values" {
		return nil, nil
	}
	switch op {
	case syntax.AMP, syntax.PIPE, syntax.MINUS, syntax.CIRCUMFLEX:
	default:
		return nil, nil
	}
	a, err := newSet(nil, v)
	if err != nil {
		return nil, err
	}
	b, err := newSet(nil, y)
	if err != nil {
		return nil, err
	}
	if side == starlark.Right {
		a, b = b, a
	}
	return starlark.Binary(op, a, b)
}

func (v *dictView) PyRepr(th *starlark.Thread) (string, error) {
	vals, err := Collect(th, v)
	if err != nil {
		return "", err
	}
	s, err := ReprValue(th, starlark.NewList(vals))
	if err != nil {
		return "", err
	}
	return "dict_" + v.kind + "(" + s + ")", nil
}

func (v *dictView) PyStr(th *starlark.Thread) (string, error) { return v.PyRepr(th) }
