package bisect

import (
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// bisect, as CPython's _bisect: the same probes in the same order, each
// a single < between the searched value and key(item), so that user
// __lt__ methods and mixed-type errors behave as in CPython.

// bisectArgs are the arguments of every bisect function:
// (a, x, lo=0, hi=None, *, key=None).
type bisectArgs struct {
	a, x    starlark.Value
	lo, hi  int
	hasHi   bool
	key     starlark.Value
	hasKey  bool
	isRight bool
}

// parseBisectArgs parses arguments with Argument Clinic's messages.
func parseBisectArgs(name string, args starlark.Tuple, kwargs []starlark.Tuple) (*bisectArgs, error) {
	names := []string{"a", "x", "lo", "hi"}
	vals := make([]starlark.Value, 4)
	if len(args) > 4 {
		return nil, core.Errorf(pyexc.TypeError, "%s() takes at most 4 positional arguments (%d given)", name, len(args))
	}
	copy(vals, args)
	b := &bisectArgs{key: starlark.None}
	for _, kv := range kwargs {
		k := string(kv[0].(starlark.String))
		if k == "key" {
			b.key = kv[1]
			continue
		}
		i := -1
		for j, n := range names {
			if n == k {
				i = j
			}
		}
		if i < 0 {
			return nil, core.Errorf(pyexc.TypeError, "'%s' is an invalid keyword argument for %s()", k, name)
		}
		if vals[i] != nil {
			return nil, core.Errorf(pyexc.TypeError, "argument for %s() given by name ('%s') and position (%d)", name, k, i+1)
		}
		vals[i] = kv[1]
	}
	for i := 0; i < 2; i++ {
		if vals[i] == nil {
			return nil, core.Errorf(pyexc.TypeError, "%s() missing required argument '%s' (pos %d)", name, names[i], i+1)
		}
	}
	b.a, b.x = vals[0], vals[1]
	if vals[2] != nil {
		lo, err := core.IndexInt(vals[2])
		if err != nil {
			return nil, err
		}
		b.lo = lo
	}
	if vals[3] != nil && vals[3] != starlark.None {
		hi, err := core.IndexInt(vals[3])
		if err != nil {
			return nil, err
		}
		// -1 is Argument Clinic's "not given".
		b.hi, b.hasHi = hi, hi != -1
	}
	b.hasKey = b.key != starlark.None
	return b, nil
}

// seqLen is PySequence_Size.
func seqLen(th *starlark.Thread, a starlark.Value) (int, error) {
	switch v := a.(type) {
	case starlark.String:
		return core.PyLen(string(v)), nil
	case *core.Instance:
		return v.PyLen(th)
	}
	if n := starlark.Len(a); n >= 0 {
		return n, nil
	}
	return 0, core.Errorf(pyexc.TypeError, "object of type '%s' has no len()", core.TypeName(a))
}

// seqItem is PySequence_GetItem for 0 <= i.
func seqItem(th *starlark.Thread, a starlark.Value, i int) (starlark.Value, error) {
	switch v := a.(type) {
	case starlark.String:
		s := string(v)
		if i >= core.PyLen(s) {
			return nil, core.Errorf(pyexc.IndexError, "string index out of range")
		}
		off := core.ByteOffset(s, i)
		end := core.ByteOffset(s[off:], 1)
		return starlark.String(s[off : off+end]), nil
	case *core.Instance:
		r, _, err := v.Get(starlark.MakeInt(i))
		return r, err
	case starlark.Indexable:
		if i >= v.Len() {
			return nil, core.Errorf(pyexc.IndexError, "%s index out of range", core.TypeName(a))
		}
		return v.Index(i), nil
	}
	return nil, core.Errorf(pyexc.TypeError, "'%s' object does not support indexing", core.TypeName(a))
}

// search is internal_bisect_left / internal_bisect_right.
func (b *bisectArgs) search(th *starlark.Thread, x starlark.Value) (int, error) {
	lo, hi := b.lo, b.hi
	if lo < 0 {
		return 0, core.Errorf(pyexc.ValueError, "lo must be non-negative")
	}
	if !b.hasHi {
		n, err := seqLen(th, b.a)
		if err != nil {
			return 0, err
		}
		hi = n
	}
	for lo < hi {
		mid := int(uint(lo+hi) / 2)
		item, err := seqItem(th, b.a, mid)
		if err != nil {
			return 0, err
		}
		if b.hasKey {
			if item, err = starlark.Call(th, b.key, starlark.Tuple{item}, nil); err != nil {
				return 0, err
			}
		}
		var lt bool
		if b.isRight {
			lt, err = core.PyLess(x, item)
		} else {
			lt, err = core.PyLess(item, x)
		}
		if err != nil {
			return 0, err
		}
		switch {
		case b.isRight && lt, !b.isRight && !lt:
			hi = mid
		default:
			lo = mid + 1
		}
	}
	return lo, nil
}

func bisectFn(name string, right bool) *starlark.Builtin {
	return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		b, err := parseBisectArgs(name, args, kwargs)
		if err != nil {
			return nil, err
		}
		b.isRight = right
		i, err := b.search(th, b.x)
		if err != nil {
			return nil, err
		}
		return starlark.MakeInt(i), nil
	})
}

func insortFn(name string, right bool) *starlark.Builtin {
	return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		b, err := parseBisectArgs(name, args, kwargs)
		if err != nil {
			return nil, err
		}
		b.isRight = right
		// The key applies to x too when inserting, not when searching.
		x := b.x
		if b.hasKey {
			if x, err = starlark.Call(th, b.key, starlark.Tuple{b.x}, nil); err != nil {
				return nil, err
			}
		}
		i, err := b.search(th, x)
		if err != nil {
			return nil, err
		}
		if l, ok := b.a.(*starlark.List); ok {
			if l.Len()%1024 == 1023 {
				if err := core.Alloc(th, 1024*core.ElemSize); err != nil {
					return nil, err
				}
			}
			_, err := core.StarlarkMethod(th, l, "insert", starlark.MakeInt(i), b.x)
			if err != nil {
				return nil, err
			}
			return starlark.None, nil
		}
		insert, err := core.GetAttr(th, b.a, "insert")
		if err != nil {
			return nil, err
		}
		if _, err := starlark.Call(th, insert, starlark.Tuple{starlark.MakeInt(i), b.x}, nil); err != nil {
			return nil, err
		}
		return starlark.None, nil
	})
}

func members() starlark.StringDict {
	return starlark.StringDict{
		"bisect_left":  bisectFn("bisect_left", false),
		"bisect_right": bisectFn("bisect_right", true),
		"bisect":       bisectFn("bisect_right", true),
		"insort_left":  insortFn("insort_left", false),
		"insort_right": insortFn("insort_right", true),
		"insort":       insortFn("insort_right", true),
	}
}

// Module returns a new bisect module.
func Module() *core.PyModule { return core.NewModule("bisect", members()) }
