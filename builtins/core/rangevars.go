package core

// range's Python attributes (start, stop, step, index, count), which
// go.starlark.net's range lacks, and vars().

import (
	"fmt"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// rangeBounds reads start, stop and step of a go.starlark.net range from
// its repr, the only place its fields show.
func rangeBounds(r starlark.Value) (start, stop, step int, err error) {
	step = 1
	if n, _ := fmt.Sscanf(r.String(), "range(%d, %d, %d)", &start, &stop, &step); n >= 2 {
		return start, stop, step, nil
	}
	if n, _ := fmt.Sscanf(r.String(), "range(%d)", &stop); n == 1 {
		return 0, stop, 1, nil
	}
	return 0, 0, 0, Errorf(pyexc.SystemError, "unreadable range %s", r)
}

// rangeAttr returns the attribute name of the range r.
func rangeAttr(r starlark.Value, name string) (starlark.Value, bool, error) {
	start, stop, step, err := rangeBounds(r)
	if err != nil {
		return nil, true, err
	}
	// position is the index of v in r, or -1.
	position := func(v starlark.Value) int {
		v = Numeric(v)
		i, ok := v.(starlark.Int)
		if !ok {
			if f, isFloat := v.(starlark.Float); isFloat && f == starlark.Float(int64(f)) {
				i = starlark.MakeInt64(int64(f))
			} else {
				return -1
			}
		}
		x, ok := i.Int64()
		if !ok {
			return -1
		}
		n := int64(r.(starlark.Indexable).Len())
		d := x - int64(start)
		if d%int64(step) != 0 {
			return -1
		}
		k := d / int64(step)
		if k < 0 || k >= n {
			return -1
		}
		return int(k)
	}
	switch name {
	case "start":
		return starlark.MakeInt(start), true, nil
	case "stop":
		return starlark.MakeInt(stop), true, nil
	case "step":
		return starlark.MakeInt(step), true, nil
	case "index":
		return starlark.NewBuiltin("index", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			v, err := oneArg("index", args, kwargs)
			if err != nil {
				return nil, err
			}
			if k := position(v); k >= 0 {
				return starlark.MakeInt(k), nil
			}
			return nil, Errorf(pyexc.ValueError, "%s is not in range", Repr(v))
		}), true, nil
	case "count":
		return starlark.NewBuiltin("count", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			v, err := oneArg("count", args, kwargs)
			if err != nil {
				return nil, err
			}
			if position(v) >= 0 {
				return starlark.MakeInt(1), nil
			}
			return starlark.MakeInt(0), nil
		}), true, nil
	}
	return nil, false, nil
}

// PyVars is vars(obj): an instance's attributes as a new dict (CPython
// returns the live __dict__; writes to the result do not reach the
// object here), or a module's members.
func PyVars(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 0 && len(kwargs) == 0 {
		return nil, Errorf(pyexc.TypeError, "vars() without an argument (the local variables) is not supported by the Starlark engine: name the variables you need")
	}
	x, err := oneArg("vars", args, kwargs)
	if err != nil {
		return nil, err
	}
	d := new(starlark.Dict)
	switch v := x.(type) {
	case *Instance:
		if err := Alloc(th, int64(len(v.order))*2*ElemSize); err != nil {
			return nil, err
		}
		for _, k := range v.order {
			if val, ok := v.attrs[k]; ok {
				d.SetKey(starlark.String(k), val)
			}
		}
		return d, nil
	case *PyModule:
		for _, k := range v.AttrNames() {
			d.SetKey(starlark.String(k), v.Members[k])
		}
		return d, nil
	}
	return nil, Errorf(pyexc.TypeError, "vars() argument must have __dict__ attribute")
}
