package builtins

// The enum module's Enum: a class statement deriving from Enum turns the
// plain values of its body into members, instances of the class with
// name and value attributes, unique and compared by identity.

import (
	"go.starlark.net/starlark"
)

var enumBase = &Class{name: "Enum", module: "enum", dict: map[string]starlark.Value{}, enum: true}

// autoValue is what enum.auto() returns: the next integer value.
type autoValue struct{}

func (a *autoValue) String() string        { return "auto()" }
func (a *autoValue) Type() string          { return "auto" }
func (a *autoValue) Freeze()               {}
func (a *autoValue) Truth() starlark.Bool  { return true }
func (a *autoValue) Hash() (uint32, error) { return uint32(uintptrOf(a)), nil }

func enumModule() starlark.StringDict {
	return starlark.StringDict{
		"Enum":   enumBase,
		"unique": fn("unique", identity),
		"auto": fn("auto", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args)+len(kwargs) > 0 {
				return nil, Errorf("TypeError", "auto() takes no arguments")
			}
			return &autoValue{}, nil
		}),
	}
}

// makeMembers turns the body values of an Enum subclass into members.
func makeMembers(c *Class) error {
	last := int64(0)
	for _, name := range c.order {
		v := c.dict[name]
		if len(name) > 0 && name[0] == '_' {
			continue
		}
		switch v.(type) {
		case *starlark.Function, *starlark.Builtin, *staticMethod, *classMethod, *property:
			continue
		case *autoValue:
			last++
			v = starlark.MakeInt64(last)
		case starlark.Int:
			if n, ok := v.(starlark.Int).Int64(); ok {
				last = n
			}
		}
		for _, m := range c.members {
			if eq, err := starlark.Equal(m.attrs["value"], v); err == nil && eq {
				// An alias: Python binds the name to the existing member.
				c.dict[name] = m
				v = nil
				break
			}
		}
		if v == nil {
			continue
		}
		m := &Instance{class: c, attrs: map[string]starlark.Value{"name": starlark.String(name), "value": v}, order: []string{"name", "value"}, frozen: true}
		c.dict[name] = m
		c.members = append(c.members, m)
	}
	return nil
}

// enumLookup is EnumClass(value).
func (c *Class) enumLookup(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 1 || len(kwargs) != 0 {
		return nil, Errorf("TypeError", "%s() takes exactly one argument", c.name)
	}
	for _, m := range c.members {
		if eq, err := starlark.Equal(m.attrs["value"], args[0]); err == nil && eq {
			return m, nil
		}
	}
	s := Repr(args[0])
	return nil, Errorf("ValueError", "%s is not a valid %s", s, c.name)
}

// Get is EnumClass["NAME"]; other classes are not subscriptable.
func (c *Class) Get(k starlark.Value) (starlark.Value, bool, error) {
	if !c.enum {
		return nil, false, Errorf("TypeError", "'type' object is not subscriptable")
	}
	if s, ok := k.(starlark.String); ok {
		for _, m := range c.members {
			if m.attrs["name"] == s {
				return m, true, nil
			}
		}
	}
	return nil, false, Errorf("KeyError", "%s", Repr(k))
}

// Iterate iterates an enum's members.
func (c *Class) Iterate() starlark.Iterator {
	if !c.enum {
		return &errIterator{err: Errorf("TypeError", "'type' object is not iterable")}
	}
	vals := make([]starlark.Value, len(c.members))
	for i, m := range c.members {
		vals[i] = m
	}
	return starlark.NewList(vals).Iterate()
}

// PyLen is len(EnumClass).
func (c *Class) PyLen(th *starlark.Thread) (int, error) {
	if !c.enum {
		return 0, Errorf("TypeError", "object of type 'type' has no len()")
	}
	return len(c.members), nil
}

// Has implements "member in EnumClass".
func (c *Class) Has(x starlark.Value) (bool, error) {
	if !c.enum {
		return false, Errorf("TypeError", "argument of type 'type' is not iterable")
	}
	for _, m := range c.members {
		if starlark.Value(m) == x {
			return true, nil
		}
	}
	return false, nil
}
