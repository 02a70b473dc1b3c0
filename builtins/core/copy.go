package core

import (
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Copier is implemented by values with their own copy semantics (the
// front end's class instances): copy.copy and copy.deepcopy call it.
type Copier interface {
	starlark.Value
	PyCopy(th *starlark.Thread, deep bool, memo map[starlark.Value]starlark.Value) (starlark.Value, error)
}

// immutable is implemented by values that copy.copy and copy.deepcopy
// return as they are (compiled patterns, typing forms).
type immutable interface {
	starlark.Value
	Immutable()
}

// itemCopier is implemented by containers of modules (deque, the dicts of
// collections): copyItems copies the container, and its items through
// copyValue when deep, counting depth as copyValue does.
type itemCopier interface {
	starlark.Value
	CopyItems(th *starlark.Thread, deep bool, memo map[starlark.Value]starlark.Value, depth int) (starlark.Value, error)
}

// CopyValue implements copy.copy (deep=false) and copy.deepcopy. Values
// it does not know are refused rather than shared, because sharing a
// mutable object would be a silently wrong copy.
func CopyValue(th *starlark.Thread, v starlark.Value, deep bool, memo map[starlark.Value]starlark.Value, depth int) (starlark.Value, error) {
	if depth > 1000 {
		return nil, Errorf(pyexc.RecursionError, "maximum recursion depth exceeded while copying")
	}
	if depth%64 == 0 {
		if err := Interrupted(th); err != nil {
			return nil, err
		}
	}
	switch v.(type) {
	case starlark.NoneType, starlark.Bool, starlark.Int, starlark.Float, starlark.String, starlark.Bytes,
		*starlark.Function, *starlark.Builtin, *Type, *PyModule, immutable:
		return v, nil
	}
	if v.Type() == "range" {
		return v, nil
	}
	if c, ok := memoGet(memo, v); ok {
		return c, nil
	}
	elem := func(e starlark.Value) (starlark.Value, error) {
		if !deep {
			return e, nil
		}
		return CopyValue(th, e, true, memo, depth+1)
	}
	switch x := v.(type) {
	case starlark.Tuple:
		if !deep {
			return x, nil
		}
		// Tuples are not memoised: a tuple held n times is copied n times.
		if err := Alloc(th, TupleHeaderSize+int64(len(x))*SlotSize); err != nil {
			return nil, err
		}
		out := make(starlark.Tuple, len(x))
		for i, e := range x {
			c, err := elem(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case *NamedtupleValue:
		t, err := CopyValue(th, x.Tuple, deep, memo, depth)
		if err != nil {
			return nil, err
		}
		return &NamedtupleValue{Tuple: t.(starlark.Tuple), typ: x.typ, fields: x.fields}, nil
	case *starlark.List:
		if err := Alloc(th, int64(x.Len())*ElemSize); err != nil {
			return nil, err
		}
		out := starlark.NewList(make([]starlark.Value, 0, x.Len()))
		memo[v] = out
		for i := 0; i < x.Len(); i++ {
			c, err := elem(x.Index(i))
			if err != nil {
				return nil, err
			}
			out.Append(c)
		}
		return out, nil
	case *starlark.Dict:
		if err := Alloc(th, int64(x.Len())*DictEntrySize); err != nil {
			return nil, err
		}
		out := starlark.NewDict(x.Len())
		memo[v] = out
		for k, e := range x.Entries() {
			ck, err := elem(k)
			if err != nil {
				return nil, err
			}
			ce, err := elem(e)
			if err != nil {
				return nil, err
			}
			out.SetKey(ck, ce)
		}
		return out, nil
	case *starlark.Set:
		if err := Alloc(th, int64(x.Len())*DictEntrySize); err != nil {
			return nil, err
		}
		out := starlark.NewSet(x.Len())
		memo[v] = out
		for e := range x.Elements() {
			c, err := elem(e)
			if err != nil {
				return nil, err
			}
			out.Insert(c)
		}
		return out, nil
	case *FrozenSet:
		if !deep {
			return x, nil // immutable: copy.copy returns it, as in CPython
		}
		if err := Alloc(th, int64(x.Len())*DictEntrySize); err != nil {
			return nil, err
		}
		out := starlark.NewSet(x.Len())
		for _, e := range x.Elements() {
			c, err := elem(e)
			if err != nil {
				return nil, err
			}
			if err := out.Insert(c); err != nil {
				return nil, err
			}
		}
		fs := NewFrozenSet(out)
		memo[v] = fs
		return fs, nil
	case itemCopier:
		return x.CopyItems(th, deep, memo, depth)
	case Copier:
		return x.PyCopy(th, deep, memo)
	}
	return nil, Errorf(pyexc.TypeError, "cannot copy '%s' object", TypeName(v))
}

// memoGet looks v up by identity, ignoring values that cannot be map
// keys.
func memoGet(memo map[starlark.Value]starlark.Value, v starlark.Value) (c starlark.Value, ok bool) {
	defer func() {
		if recover() != nil {
			c, ok = nil, false
		}
	}()
	c, ok = memo[v]
	return
}
