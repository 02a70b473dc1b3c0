package collections

import (
	"strings"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// ChainMap is collections.ChainMap: a view of several mappings searched
// in order; writes and deletions go to the first.
type ChainMap struct {
	maps *starlark.List // the mappings, first searched first
}

var typeChainMap = &core.Type{PyName: "collections.ChainMap", Base: core.TypeObject}

var (
	_ starlark.IterableMapping = (*ChainMap)(nil)
	_ starlark.HasSetKey       = (*ChainMap)(nil)
	_ starlark.Container       = (*ChainMap)(nil)
	_ starlark.HasAttrs        = (*ChainMap)(nil)
	_ core.Representer         = (*ChainMap)(nil)
)

func (c *ChainMap) String() string         { return core.Repr(c) }
func (c *ChainMap) Type() string           { return "ChainMap" }
func (c *ChainMap) PyType() starlark.Value { return typeChainMap }
func (c *ChainMap) Freeze()                { c.maps.Freeze() }
func (c *ChainMap) Truth() starlark.Bool   { return c.Len() > 0 }
func (c *ChainMap) Hash() (uint32, error) {
	return 0, core.Errorf(pyexc.TypeError, "unhashable type: 'ChainMap'")
}

func (c *ChainMap) mapping(i int) starlark.Mapping {
	m, _ := c.maps.Index(i).(starlark.Mapping)
	return m
}

// Get is c[k]: the value in the first mapping that has k.
func (c *ChainMap) Get(k starlark.Value) (starlark.Value, bool, error) {
	for i := 0; i < c.maps.Len(); i++ {
		m := c.mapping(i)
		if m == nil {
			continue
		}
		if ct, ok := m.(starlark.Container); ok {
			// A Counter or defaultdict answers for missing keys: ask
			// whether it has k first.
			has, err := ct.Has(k)
			if err != nil {
				return nil, false, err
			}
			if !has {
				continue
			}
		}
		v, found, err := m.Get(k)
		if err != nil || found {
			return v, found, err
		}
	}
	return nil, false, nil
}

// Has is "k in c".
func (c *ChainMap) Has(k starlark.Value) (bool, error) {
	_, found, err := c.Get(k)
	return found, err
}

// SetKey is c[k] = v, in the first mapping.
func (c *ChainMap) SetKey(k, v starlark.Value) error {
	m, ok := c.maps.Index(0).(starlark.HasSetKey)
	if !ok {
		return core.Errorf(pyexc.TypeError, "'%s' object does not support item assignment", core.TypeName(c.maps.Index(0)))
	}
	return m.SetKey(k, v)
}

// union is the keys of all the mappings, in CPython's order: those of
// the last mapping first.
func (c *ChainMap) union() *starlark.Dict {
	d := starlark.NewDict(0)
	for i := c.maps.Len() - 1; i >= 0; i-- {
		if m, ok := c.maps.Index(i).(starlark.IterableMapping); ok {
			for _, kv := range m.Items() {
				if _, found, _ := d.Get(kv[0]); !found {
					_ = d.SetKey(kv[0], starlark.None)
				}
			}
		}
	}
	return d
}

func (c *ChainMap) Len() int { return c.union().Len() }

// Items are the keys with the value c[k] gives.
func (c *ChainMap) Items() []starlark.Tuple {
	keys := c.union().Keys()
	out := make([]starlark.Tuple, 0, len(keys))
	for _, k := range keys {
		v, _, _ := c.Get(k)
		out = append(out, starlark.Tuple{k, v})
	}
	return out
}

func (c *ChainMap) Iterate() starlark.Iterator { return c.union().Iterate() }

// PyRepr is ChainMap({...}, {...}).
func (c *ChainMap) PyRepr(th *starlark.Thread) (string, error) {
	parts := make([]string, c.maps.Len())
	for i := range parts {
		s, err := core.ReprValue(th, c.maps.Index(i))
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	return "ChainMap(" + strings.Join(parts, ", ") + ")", nil
}

func (c *ChainMap) PyStr(th *starlark.Thread) (string, error) { return c.PyRepr(th) }

func (c *ChainMap) AttrNames() []string {
	return []string{"clear", "copy", "get", "items", "keys", "maps", "new_child", "parents", "pop", "setdefault", "update", "values"}
}

func (c *ChainMap) Attr(name string) (starlark.Value, error) {
	fn := func(f core.BuiltinFn) (starlark.Value, error) { return core.Fn(name, f), nil }
	first := func() (*starlark.Dict, starlark.Value, error) {
		m := c.maps.Index(0)
		switch d := m.(type) {
		case *starlark.Dict:
			return d, m, nil
		case *DictLike:
			return d.Dict, m, nil
		}
		return nil, nil, core.Errorf(pyexc.TypeError, "ChainMap.%s needs a dict as the first mapping, not '%s'", name, core.TypeName(m))
	}
	switch name {
	case "maps":
		return c.maps, nil
	case "parents":
		rest := make([]starlark.Value, 0, c.maps.Len())
		for i := 1; i < c.maps.Len(); i++ {
			rest = append(rest, c.maps.Index(i))
		}
		if len(rest) == 0 {
			rest = append(rest, starlark.NewDict(0))
		}
		return &ChainMap{maps: starlark.NewList(rest)}, nil
	case "get":
		return fn(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var k, dflt starlark.Value = nil, starlark.None
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &k, &dflt); err != nil {
				return nil, err
			}
			v, found, err := c.Get(k)
			if err != nil || !found {
				return dflt, err
			}
			return v, nil
		})
	case "keys", "values", "items":
		return fn(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
				return nil, err
			}
			d := starlark.NewDict(0)
			for _, kv := range c.Items() {
				if err := d.SetKey(kv[0], kv[1]); err != nil {
					return nil, err
				}
			}
			m, err := d.Attr(name)
			if err != nil {
				return nil, err
			}
			return starlark.Call(th, m, nil, nil)
		})
	case "new_child":
		return fn(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var m starlark.Value = starlark.None
			if err := starlark.UnpackArgs(name, args, kwargs, "m?", &m); err != nil {
				return nil, err
			}
			if m == starlark.None {
				m = starlark.NewDict(0)
			}
			maps := []starlark.Value{m}
			for i := 0; i < c.maps.Len(); i++ {
				maps = append(maps, c.maps.Index(i))
			}
			return &ChainMap{maps: starlark.NewList(maps)}, nil
		})
	case "copy":
		return fn(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			d, _, err := first()
			if err != nil {
				return nil, err
			}
			cp := starlark.NewDict(d.Len())
			for _, kv := range d.Items() {
				_ = cp.SetKey(kv[0], kv[1])
			}
			maps := []starlark.Value{cp}
			for i := 1; i < c.maps.Len(); i++ {
				maps = append(maps, c.maps.Index(i))
			}
			return &ChainMap{maps: starlark.NewList(maps)}, nil
		})
	case "pop", "clear", "update", "setdefault", "popitem":
		// Writes go to the first mapping.
		_, m, err := first()
		if err != nil {
			return nil, err
		}
		if name == "pop" {
			return fn(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				if len(args) == 1 {
					if _, found, err := m.(starlark.Mapping).Get(args[0]); err == nil && !found {
						k, _ := core.ReprValue(th, args[0])
						return nil, core.Errorf(pyexc.KeyError, "Key not found in the first mapping: %s", k)
					}
				}
				method, err := m.(starlark.HasAttrs).Attr(name)
				if err != nil {
					return nil, err
				}
				return starlark.Call(th, method, args, kwargs)
			})
		}
		return m.(starlark.HasAttrs).Attr(name)
	}
	return nil, core.Errorf(pyexc.AttributeError, "'ChainMap' object has no attribute '%s'", name)
}

func init() {
	typeChainMap.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(kwargs) > 0 {
			return nil, core.Errorf(pyexc.TypeError, "ChainMap() takes no keyword arguments")
		}
		maps := make([]starlark.Value, 0, len(args)+1)
		for _, a := range args {
			if _, ok := a.(starlark.Mapping); !ok {
				return nil, core.Errorf(pyexc.TypeError, "ChainMap takes mappings, not '%s'", core.TypeName(a))
			}
			maps = append(maps, a)
		}
		if len(maps) == 0 {
			maps = append(maps, starlark.NewDict(0))
		}
		return &ChainMap{maps: starlark.NewList(maps)}, nil
	}
}
