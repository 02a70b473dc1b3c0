package core

import (
	"strings"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// The search methods of str: find, index, count, startswith and their
// mirror images.

// strFind is str.find and str.rfind.
func strFind(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	i, err := findImpl(fn, s, args, kwargs, fn.Name() == "rfind")
	return starlark.MakeInt(i), err
}

// strIndex is str.index and str.rindex.
func strIndex(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	i, err := findImpl(fn, s, args, kwargs, fn.Name() == "rindex")
	if err != nil {
		return nil, err
	}
	if i < 0 {
		return nil, Errorf(pyexc.ValueError, "substring not found")
	}
	return starlark.MakeInt(i), nil
}

func strCount(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var sub string
	var start, end starlark.Value
	if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &sub, &start, &end); err != nil {
		return nil, err
	}
	w, _, ok, err := window(s, start, end)
	if err != nil || !ok {
		return starlark.MakeInt(0), err
	}
	if sub == "" {
		return starlark.MakeInt(PyLen(w) + 1), nil
	}
	return starlark.MakeInt(strings.Count(w, sub)), nil
}

// strStartswith is str.startswith and str.endswith.
func strStartswith(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	name := fn.Name()
	suffix := name == "endswith"
	var x, start, end starlark.Value
	if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &x, &start, &end); err != nil {
		return nil, err
	}
	w, _, ok, err := window(s, start, end)
	if err != nil {
		return nil, err
	}
	var cands []starlark.Value
	switch x := x.(type) {
	case starlark.String:
		cands = []starlark.Value{x}
	case starlark.Tuple:
		cands = x
	default:
		return nil, Errorf(pyexc.TypeError, "%s first arg must be str or a tuple of str, not %s", name, TypeName(x))
	}
	for _, c := range cands {
		cs, isStr := c.(starlark.String)
		if !isStr {
			return nil, Errorf(pyexc.TypeError, "tuple for %s must only contain str, not %s", name, TypeName(c))
		}
		if !ok {
			continue
		}
		if (suffix && strings.HasSuffix(w, string(cs))) || (!suffix && strings.HasPrefix(w, string(cs))) {
			return starlark.True, nil
		}
	}
	return starlark.False, nil
}

func findImpl(fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple, last bool) (int, error) {
	var sub string
	var start, end starlark.Value
	if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &sub, &start, &end); err != nil {
		return 0, err
	}
	w, off, ok, err := window(s, start, end)
	if err != nil || !ok {
		return -1, err
	}
	var i int
	if last {
		i = strings.LastIndex(w, sub)
	} else {
		i = strings.Index(w, sub)
	}
	if i < 0 {
		return -1, nil
	}
	return off + PyLen(w[:i]), nil
}
