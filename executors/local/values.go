package local

import (
	"fmt"
	"maps"
	"slices"

	"go.starlark.net/starlark"

	"github.com/star-agent/star-agent/builtins"
	"github.com/star-agent/star-agent/executors/runner"
)

// Variables cross between engines in the runner protocol's Go types, so
// that a tuple stays a tuple and a set a set on the way to CPython and
// back. (Tools receive plain JSON shapes instead, through builtins.ToGo.)

// export converts a Starlark value for another engine.
func exportValue(v starlark.Value, depth int) (any, error) {
	if depth > 100 {
		return nil, builtins.Errorf("ValueError", "value is nested too deeply (or contains itself)")
	}
	list := func(it starlark.Iterable) ([]any, error) {
		out := []any{}
		iter := it.Iterate()
		defer iter.Done()
		var x starlark.Value
		for iter.Next(&x) {
			g, err := exportValue(x, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, nil
	}
	switch v := v.(type) {
	case starlark.Tuple:
		elems, err := list(v)
		return runner.Tuple(elems), err
	case *starlark.Set:
		elems, err := list(v)
		return runner.Set(elems), err
	case *builtins.FrozenSet:
		elems, err := list(v)
		return runner.FrozenSet(elems), err
	case *starlark.List:
		return list(v)
	case starlark.Bytes:
		return []byte(v), nil
	case *starlark.Dict:
		stringKeys := true
		for _, k := range v.Keys() {
			if _, ok := k.(starlark.String); !ok {
				stringKeys = false
			}
		}
		if stringKeys {
			out := make(map[string]any, v.Len())
			for _, kv := range v.Items() {
				x, err := exportValue(kv[1], depth+1)
				if err != nil {
					return nil, err
				}
				out[string(kv[0].(starlark.String))] = x
			}
			return out, nil
		}
		var out runner.Dict
		for _, kv := range v.Items() {
			k, err := exportValue(kv[0], depth+1)
			if err != nil {
				return nil, err
			}
			x, err := exportValue(kv[1], depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, runner.Item{Key: k, Value: x})
		}
		return out, nil
	}
	return builtins.ToGo(v)
}

// importValue converts a value from another engine (or the caller).
func importValue(x any) (starlark.Value, error) {
	switch x := x.(type) {
	case runner.Tuple:
		elems, err := importList(x)
		return starlark.Tuple(elems), err
	case runner.Set:
		return importSet(x)
	case runner.FrozenSet:
		s, err := importSet(x)
		if err != nil {
			return nil, err
		}
		return builtins.NewFrozenSet(s), nil
	case []any:
		elems, err := importList(x)
		return starlark.NewList(elems), err
	case map[string]any:
		d := starlark.NewDict(len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			v, err := importValue(x[k])
			if err != nil {
				return nil, err
			}
			d.SetKey(starlark.String(k), v)
		}
		return d, nil
	case runner.Dict:
		d := starlark.NewDict(len(x))
		for _, it := range x {
			k, err := importValue(it.Key)
			if err != nil {
				return nil, err
			}
			v, err := importValue(it.Value)
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(k, v); err != nil {
				return nil, err
			}
		}
		return d, nil
	case runner.Date:
		return starlark.String(x), nil
	case runner.Time:
		return starlark.String(x), nil
	case runner.Opaque:
		return nil, fmt.Errorf("a Python %s has no equivalent in the Starlark engine", x.Type)
	}
	return builtins.FromGo(x)
}

func importList(xs []any) ([]starlark.Value, error) {
	out := make([]starlark.Value, len(xs))
	for i, x := range xs {
		v, err := importValue(x)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func importSet(xs []any) (*starlark.Set, error) {
	s := starlark.NewSet(len(xs))
	for _, x := range xs {
		v, err := importValue(x)
		if err != nil {
			return nil, err
		}
		if err := s.Insert(v); err != nil {
			return nil, err
		}
	}
	return s, nil
}
