package core

import (
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Slice assignment and deletion on lists (a[i:j] = xs, del a[i:j]),
// which go.starlark.net lacks.

// sliceIndices is CPython's PySlice_AdjustIndices: the start, stop and
// step of a slice of a sequence of length n, and the number of elements
// it selects.
func sliceIndices(n int, lo, hi, step starlark.Value) (start, stop, st, count int, err error) {
	st = 1
	if step != starlark.None {
		if st, err = SliceIndex(step); err != nil {
			return
		}
		if st == 0 {
			err = Errorf(pyexc.ValueError, "slice step cannot be zero")
			return
		}
	}
	bound := func(v starlark.Value, dflt int) (int, error) {
		if v == starlark.None {
			return dflt, nil
		}
		i, err := SliceIndex(v)
		if err != nil {
			return 0, err
		}
		if i < 0 {
			i += n
			if i < 0 {
				if st < 0 {
					return -1, nil
				}
				return 0, nil
			}
		} else if i >= n {
			if st < 0 {
				return n - 1, nil
			}
			return n, nil
		}
		return i, nil
	}
	if st > 0 {
		start, err = bound(lo, 0)
		if err == nil {
			stop, err = bound(hi, n)
		}
		if err == nil && stop > start {
			count = (stop - start + st - 1) / st
		}
	} else {
		start, err = bound(lo, n-1)
		if err == nil {
			stop, err = bound(hi, -1)
		}
		if err == nil && start > stop {
			count = (start - stop - st - 1) / -st
		}
	}
	return
}

func sliceList(name string, x starlark.Value) (*starlark.List, error) {
	l, ok := x.(*starlark.List)
	if !ok {
		if name == "del" {
			return nil, Errorf(pyexc.TypeError, "'%s' object does not support item deletion", TypeName(x))
		}
		return nil, Errorf(pyexc.TypeError, "'%s' object does not support item assignment", TypeName(x))
	}
	return l, nil
}

// replaceAll makes l hold vals, failing as go.starlark.net's own
// mutations do on a frozen list or one being iterated.
func replaceAll(l *starlark.List, vals []starlark.Value) error {
	if err := l.Clear(); err != nil {
		return err
	}
	for _, v := range vals {
		if err := l.Append(v); err != nil {
			return err
		}
	}
	return nil
}

func SaSetSlice(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 5 || len(kwargs) != 0 {
		return nil, Errorf(pyexc.TypeError, "%s takes 5 arguments", contract.HelperSetSlice)
	}
	l, err := sliceList("set", args[0])
	if err != nil {
		return nil, err
	}
	// Collect the new items first: l[:] = l is allowed.
	items, err := Collect(th, args[4])
	if err != nil {
		if _, ok := args[4].(starlark.Iterable); !ok {
			return nil, Errorf(pyexc.TypeError, "can only assign an iterable")
		}
		return nil, err
	}
	n := l.Len()
	start, stop, step, count, err := sliceIndices(n, args[1], args[2], args[3])
	if err != nil {
		return nil, err
	}
	old := make([]starlark.Value, n)
	for i := range old {
		old[i] = l.Index(i)
	}
	if step == 1 {
		stop = max(stop, start)
		if err := Alloc(th, int64(n-(stop-start)+len(items))*ElemSize); err != nil {
			return nil, err
		}
		out := make([]starlark.Value, 0, n-(stop-start)+len(items))
		out = append(out, old[:start]...)
		out = append(out, items...)
		out = append(out, old[stop:]...)
		return starlark.None, replaceAll(l, out)
	}
	if len(items) != count {
		return nil, Errorf(pyexc.ValueError, "attempt to assign sequence of size %d to extended slice of size %d", len(items), count)
	}
	for k, i := 0, start; k < count; k, i = k+1, i+step {
		old[i] = items[k]
	}
	return starlark.None, replaceAll(l, old)
}

func SaDelSlice(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 4 || len(kwargs) != 0 {
		return nil, Errorf(pyexc.TypeError, "%s takes 4 arguments", contract.HelperDelSlice)
	}
	l, err := sliceList("del", args[0])
	if err != nil {
		return nil, err
	}
	n := l.Len()
	start, _, step, count, err := sliceIndices(n, args[1], args[2], args[3])
	if err != nil {
		return nil, err
	}
	drop := make(map[int]bool, count)
	for k, i := 0, start; k < count; k, i = k+1, i+step {
		drop[i] = true
	}
	out := make([]starlark.Value, 0, n-count)
	for i := 0; i < n; i++ {
		if !drop[i] {
			out = append(out, l.Index(i))
		}
	}
	return starlark.None, replaceAll(l, out)
}
