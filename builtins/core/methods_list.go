package core

import (
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// The methods of list and tuple, bound into ListMethods and TupleMethods
// by defineMethods.

var listMethodFuncs = map[string]BuiltinFn{
	"append":  listAppend,
	"clear":   listClear,
	"copy":    listCopy,
	"count":   sequenceCount,
	"extend":  listExtend,
	"index":   sequenceIndex,
	"insert":  listInsert,
	"pop":     listPop,
	"remove":  listRemove,
	"reverse": listReverse,
	"sort":    listSort,
}

var tupleMethodFuncs = map[string]BuiltinFn{
	"count": sequenceCount,
	"index": sequenceIndex,
}

func listAppend(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackPositionalArgs("append", args, kwargs, 1, &v); err != nil {
		return nil, err
	}
	l := fn.Receiver().(*starlark.List)
	if l.Len()%1024 == 1023 {
		if err := Alloc(th, 1024*ElemSize); err != nil {
			return nil, err
		}
	}
	return starlark.None, l.Append(v)
}

func listClear(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackPositionalArgs("clear", args, kwargs, 0); err != nil {
		return nil, err
	}
	return starlark.None, fn.Receiver().(*starlark.List).Clear()
}

func listCopy(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackPositionalArgs("copy", args, kwargs, 0); err != nil {
		return nil, err
	}
	vals, err := Collect(th, fn.Receiver())
	if err != nil {
		return nil, err
	}
	return starlark.NewList(vals), nil
}

// sequenceCount is list.count and tuple.count.
func sequenceCount(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgs("count", args, kwargs, 1, &x); err != nil {
		return nil, err
	}
	n := 0
	err := ForEach(th, fn.Receiver(), func(e starlark.Value) error {
		eq, err := EqualOn(th, e, x)
		if eq {
			n++
		}
		return err
	})
	return starlark.MakeInt(n), err
}

// sequenceIndex is list.index and tuple.index.
func sequenceIndex(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, start, end starlark.Value
	if err := starlark.UnpackPositionalArgs("index", args, kwargs, 1, &x, &start, &end); err != nil {
		return nil, err
	}
	if start == starlark.None || end == starlark.None {
		// list.index and tuple.index take no None bounds, unlike
		// str.index.
		return nil, Errorf(pyexc.TypeError, "slice indices must be integers or have an __index__ method")
	}
	seq := fn.Receiver().(starlark.Indexable)
	n := seq.Len()
	lo, err := IndexArg(start, n, 0)
	if err != nil {
		return nil, err
	}
	hi, err := IndexArg(end, n, n)
	if err != nil {
		return nil, err
	}
	for i := lo; i < hi && i < seq.Len(); i++ {
		if i%CheckEvery == CheckEvery-1 {
			if err := Interrupted(th); err != nil {
				return nil, err
			}
		}
		if eq, err := EqualOn(th, seq.Index(i), x); err != nil || eq {
			return starlark.MakeInt(i), err
		}
	}
	if _, ok := seq.(starlark.Tuple); ok {
		return nil, Errorf(pyexc.ValueError, "tuple.index(x): x not in tuple")
	}
	r, _ := ReprValue(th, x)
	return nil, Errorf(pyexc.ValueError, "%s is not in list", r)
}

func listExtend(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	if err := starlark.UnpackPositionalArgs("extend", args, kwargs, 1, &it); err != nil {
		return nil, err
	}
	vals, err := Collect(th, it)
	if err != nil {
		return nil, err
	}
	l := fn.Receiver().(*starlark.List)
	for _, v := range vals {
		if err := l.Append(v); err != nil {
			return nil, err
		}
	}
	return starlark.None, nil
}

func listInsert(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf(pyexc.TypeError, "list.insert() takes no keyword arguments")
	}
	if len(args) != 2 {
		return nil, Errorf(pyexc.TypeError, "insert expected 2 arguments, got %d", len(args))
	}
	// An index beyond any list is clamped as CPython clamps it, once it
	// fits a Py_ssize_t.
	i, err := IndexInt(args[0])
	if err != nil {
		return nil, err
	}
	return StarlarkMethod(th, fn.Receiver().(*starlark.List), "insert", starlark.MakeInt(i), args[1])
}

func listPop(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	i := -1
	if err := starlark.UnpackPositionalArgs("pop", args, kwargs, 0, &i); err != nil {
		return nil, err
	}
	l := fn.Receiver().(*starlark.List)
	if l.Len() == 0 {
		return nil, Errorf(pyexc.IndexError, "pop from empty list")
	}
	if i < -l.Len() || i >= l.Len() {
		return nil, Errorf(pyexc.IndexError, "pop index out of range")
	}
	return StarlarkMethod(th, l, "pop", starlark.MakeInt(i))
}

func listRemove(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgs("remove", args, kwargs, 1, &x); err != nil {
		return nil, err
	}
	l := fn.Receiver().(*starlark.List)
	for i := 0; i < l.Len(); i++ {
		if i%CheckEvery == CheckEvery-1 {
			if err := Interrupted(th); err != nil {
				return nil, err
			}
		}
		if eq, err := EqualOn(th, l.Index(i), x); err != nil {
			return nil, err
		} else if eq {
			_, err := StarlarkMethod(th, l, "pop", starlark.MakeInt(i))
			return starlark.None, err
		}
	}
	return nil, Errorf(pyexc.ValueError, "list.remove(x): x not in list")
}

func listReverse(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackPositionalArgs("reverse", args, kwargs, 0); err != nil {
		return nil, err
	}
	l := fn.Receiver().(*starlark.List)
	for i, j := 0, l.Len()-1; i < j; i, j = i+1, j-1 {
		a, b := l.Index(i), l.Index(j)
		if err := l.SetIndex(i, b); err != nil {
			return nil, err
		}
		l.SetIndex(j, a)
	}
	return starlark.None, nil
}

func listSort(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var key starlark.Value = starlark.None
	if len(args) > 0 {
		return nil, Errorf(pyexc.TypeError, "sort() takes no positional arguments")
	}
	var rev starlark.Value = starlark.False
	if err := starlark.UnpackArgs("sort", args, kwargs, "key?", &key, "reverse?", &rev); err != nil {
		return nil, err
	}
	reverse, err := reverseArg(rev)
	if err != nil {
		return nil, err
	}
	// SortList empties the list while it sorts, as CPython does: a
	// key function that adds to it makes the sort fail.
	return starlark.None, SortList(th, fn.Receiver().(*starlark.List), key, reverse)
}
