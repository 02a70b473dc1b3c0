package builtins

// Creating classes (the lowered class statement), super(), the property,
// staticmethod and classmethod decorators, and the dataclasses module.

import (
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

const (
	// HelperClass: __sa_class(name, namespace, cell, fields, box, *bases)
	// creates a class from the dict its lowered body returned. cell (a
	// Cell) receives the class, for super() in its methods; fields lists
	// the annotated names of the body in order, for @dataclass; box is
	// the executor's ThreadBox (HelperBox).
	HelperClass = "__sa_class"
	// HelperSuper: __sa_super(cell, self) is super() in a method of the
	// class cell holds.
	HelperSuper = "__sa_super"
)

func saClass(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 5 || len(args) > 6 || len(kwargs) > 0 {
		return nil, Errorf("TypeError", "%s: wrong arguments", HelperClass)
	}
	name, _ := args[0].(starlark.String)
	ns, ok1 := args[1].(*starlark.Dict)
	cell, ok2 := args[2].(*Cell)
	fields, ok3 := args[3].(*starlark.List)
	box, ok4 := args[4].(*ThreadBox)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, Errorf("TypeError", "%s: wrong arguments", HelperClass)
	}
	c := &Class{name: string(name), module: "__main__", dict: make(map[string]starlark.Value, ns.Len()), box: box}
	if len(args) == 6 {
		switch b := args[5].(type) {
		case *Class:
			c.base = b
			c.exc = b.exc
			c.enum = b.enum
			if b.enum && len(b.members) > 0 {
				return nil, Errorf("TypeError", "%s: cannot extend %s", string(name), b.name)
			}
		case *Type:
			if b != typeObject {
				return nil, Errorf("TypeError", "subclassing the built-in type '%s' is not supported by the Starlark engine", b.name)
			}
		default:
			return nil, Errorf("TypeError", "%s() argument 'bases' must be a class, not '%s'", string(name), TypeName(args[5]))
		}
	}
	if err := Alloc(th, objectBytes+int64(ns.Len())*dictEntryBytes); err != nil {
		return nil, err
	}
	for _, kv := range ns.Items() {
		k, _ := kv[0].(starlark.String)
		c.dict[string(k)] = kv[1]
		c.order = append(c.order, string(k))
	}
	for i := 0; i < fields.Len(); i++ {
		f, _ := fields.Index(i).(starlark.String)
		c.fields = append(c.fields, string(f))
	}
	if c.enum {
		if err := makeMembers(c); err != nil {
			return nil, err
		}
	}
	cell.v = c
	return c, nil
}

func saSuper(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var cell, self starlark.Value
	if err := starlark.UnpackPositionalArgs(HelperSuper, args, kwargs, 2, &cell, &self); err != nil {
		return nil, err
	}
	c, _ := cell.(*Cell)
	if c == nil {
		return nil, Errorf("RuntimeError", "super(): __class__ cell not found")
	}
	class, _ := c.v.(*Class)
	if class == nil {
		return nil, Errorf("RuntimeError", "super(): empty __class__ cell")
	}
	ok := class.IsInstance(self)
	if sc, isClass := self.(*Class); isClass {
		ok = sc.IsSubclassOf(class)
	}
	if !ok {
		return nil, Errorf("TypeError", "super(type, obj): obj must be an instance or subtype of type")
	}
	return &superProxy{class: class, self: self}, nil
}

// Decorators.
var (
	propertyFn = starlark.NewBuiltin("property", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var get, set starlark.Value = starlark.None, starlark.None
		if err := starlark.UnpackArgs("property", args, kwargs, "fget?", &get, "fset?", &set); err != nil {
			return nil, err
		}
		p := &property{get: get}
		if set != starlark.None {
			p.set = set
		}
		return p, nil
	})
	staticmethodFn = starlark.NewBuiltin("staticmethod", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var fn starlark.Value
		if err := starlark.UnpackPositionalArgs("staticmethod", args, kwargs, 1, &fn); err != nil {
			return nil, err
		}
		return &staticMethod{fn: fn}, nil
	})
	classmethodFn = starlark.NewBuiltin("classmethod", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var fn starlark.Callable
		if err := starlark.UnpackPositionalArgs("classmethod", args, kwargs, 1, &fn); err != nil {
			return nil, err
		}
		return &classMethod{fn: fn}, nil
	})
)

// dataclassInfo is what @dataclass records on a class.
type dataclassInfo struct {
	fields []dcField
	eq     bool
	order  bool
	frozen bool
}

type dcField struct {
	name    string
	dflt    starlark.Value // nil: required
	factory starlark.Value // default_factory, or nil
}

// fieldSpec is what dataclasses.field() returns.
type fieldSpec struct {
	dflt, factory starlark.Value
}

func (f *fieldSpec) String() string        { return "Field()" }
func (f *fieldSpec) Type() string          { return "Field" }
func (f *fieldSpec) Freeze()               {}
func (f *fieldSpec) Truth() starlark.Bool  { return true }
func (f *fieldSpec) Hash() (uint32, error) { return uint32(uintptrOf(f)), nil }

func dcFieldFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var dflt, factory, repr, compare, init, hash, kwOnly, metadata starlark.Value
	if err := starlark.UnpackArgs("field", args, kwargs, "default?", &dflt, "default_factory?", &factory,
		"repr?", &repr, "compare?", &compare, "init?", &init, "hash?", &hash, "kw_only?", &kwOnly, "metadata?", &metadata); err != nil {
		return nil, err
	}
	// Options that change which fields take part are refused rather than
	// ignored, which would print or compare differently from Python.
	for name, v := range map[string]starlark.Value{"repr": repr, "compare": compare, "init": init, "kw_only": kwOnly} {
		if v != nil && v != starlark.True && !(name == "kw_only" && v == starlark.False) {
			return nil, Errorf("TypeError", "field(%s=...) is not supported by the Starlark engine", name)
		}
	}
	if dflt != nil && factory != nil {
		return nil, Errorf("ValueError", "cannot specify both default and default_factory")
	}
	return &fieldSpec{dflt: dflt, factory: factory}, nil
}

func dataclassFn(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) > 1 {
		return nil, Errorf("TypeError", "dataclass() takes at most 1 positional argument")
	}
	info := &dataclassInfo{eq: true}
	for _, kv := range kwargs {
		k := string(kv[0].(starlark.String))
		on := bool(kv[1].Truth())
		switch k {
		case "eq":
			info.eq = on
		case "order":
			info.order = on
		case "frozen":
			info.frozen = on
		case "repr", "init":
			if !on {
				return nil, Errorf("TypeError", "dataclass(%s=False) is not supported by the Starlark engine", k)
			}
		default:
			return nil, Errorf("TypeError", "dataclass(%s=...) is not supported by the Starlark engine", k)
		}
	}
	if len(args) == 0 {
		return starlark.NewBuiltin("dataclass", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var c starlark.Value
			if err := starlark.UnpackPositionalArgs("dataclass", args, kwargs, 1, &c); err != nil {
				return nil, err
			}
			return makeDataclass(c, info)
		}), nil
	}
	return makeDataclass(args[0], info)
}

func makeDataclass(v starlark.Value, info *dataclassInfo) (starlark.Value, error) {
	c, ok := v.(*Class)
	if !ok || c.shared() {
		return nil, Errorf("TypeError", "dataclass() should be called on a class")
	}
	if info.order && !info.eq {
		return nil, Errorf("ValueError", "eq must be true if order is true")
	}
	if base := c.base.dataclassOrNil(); base != nil {
		info.fields = append(info.fields, base.fields...)
	}
	for _, name := range c.fields {
		f := dcField{name: name}
		if d, ok := c.dict[name]; ok {
			if spec, ok := d.(*fieldSpec); ok {
				f.dflt, f.factory = spec.dflt, spec.factory
				if spec.dflt != nil {
					c.dict[name] = spec.dflt
				} else {
					delete(c.dict, name)
				}
			} else {
				switch d.(type) {
				case *starlark.List, *starlark.Dict, *starlark.Set:
					return nil, Errorf("ValueError", "mutable default %s for field %s is not allowed: use default_factory", TypeName(d), name)
				}
				f.dflt = d
			}
		}
		replaced := false
		for i := range info.fields {
			if info.fields[i].name == name {
				info.fields[i], replaced = f, true
			}
		}
		if !replaced {
			info.fields = append(info.fields, f)
		}
	}
	seenDefault := false
	for _, f := range info.fields {
		if f.dflt != nil || f.factory != nil {
			seenDefault = true
		} else if seenDefault {
			return nil, Errorf("TypeError", "non-default argument '%s' follows default argument", f.name)
		}
	}
	c.dc = info
	if _, ok := c.dict["__init__"]; !ok {
		c.dict["__init__"] = starlark.NewBuiltin("__init__", info.init)
		c.order = append(c.order, "__init__")
	}
	return c, nil
}

func (c *Class) dataclassOrNil() *dataclassInfo {
	if c == nil {
		return nil
	}
	return c.dataclass()
}

// init is the generated __init__(self, field1, field2=default, ...).
func (info *dataclassInfo) init(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	self, ok := args[0].(*Instance)
	if !ok {
		return nil, Errorf("TypeError", "__init__() needs an instance")
	}
	args = args[1:]
	name := self.class.name
	if len(args) > len(info.fields) {
		return nil, Errorf("TypeError", "%s.__init__() takes %d positional arguments but %d were given", name, len(info.fields)+1, len(args)+1)
	}
	vals := make([]starlark.Value, len(info.fields))
	copy(vals, args)
	for _, kv := range kwargs {
		k := string(kv[0].(starlark.String))
		found := false
		for i, f := range info.fields {
			if f.name == k {
				if vals[i] != nil {
					return nil, Errorf("TypeError", "%s.__init__() got multiple values for argument '%s'", name, k)
				}
				vals[i], found = kv[1], true
			}
		}
		if !found {
			return nil, Errorf("TypeError", "%s.__init__() got an unexpected keyword argument '%s'", name, k)
		}
	}
	var missing []string
	for i, f := range info.fields {
		if vals[i] != nil {
			continue
		}
		switch {
		case f.factory != nil:
			v, err := starlark.Call(th, f.factory, nil, nil)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		case f.dflt != nil:
			vals[i] = f.dflt
		default:
			missing = append(missing, "'"+f.name+"'")
		}
	}
	if len(missing) > 0 {
		list := strings.Join(missing, ", ")
		if n := len(missing); n > 1 {
			list = strings.Join(missing[:n-1], ", ") + " and " + missing[n-1]
		}
		s := ""
		if len(missing) > 1 {
			s = "s"
		}
		return nil, Errorf("TypeError", "%s.__init__() missing %d required positional argument%s: %s", name, len(missing), s, list)
	}
	for i, f := range info.fields {
		if _, ok := self.attrs[f.name]; !ok {
			self.order = append(self.order, f.name)
		}
		self.attrs[f.name] = vals[i]
	}
	if post := self.dunder("__post_init__"); post != nil {
		if _, err := starlark.Call(th, bind(post, self), nil, nil); err != nil {
			return nil, err
		}
	}
	self.frozen = info.frozen
	return starlark.None, nil
}

func (info *dataclassInfo) values(o *Instance) starlark.Tuple {
	t := make(starlark.Tuple, len(info.fields))
	for i, f := range info.fields {
		t[i] = o.attrs[f.name]
		if t[i] == nil {
			t[i] = starlark.None
		}
	}
	return t
}

func (info *dataclassInfo) repr(th *starlark.Thread, o *Instance) (string, error) {
	var b strings.Builder
	b.WriteString(o.class.name + "(")
	for i, f := range info.fields {
		if i > 0 {
			b.WriteString(", ")
		}
		s, err := ReprValue(th, info.values(o)[i])
		if err != nil {
			return "", err
		}
		b.WriteString(f.name + "=" + s)
	}
	b.WriteString(")")
	return b.String(), nil
}

func (info *dataclassInfo) hash(o *Instance) (uint32, error) {
	if info.eq && !info.frozen {
		return 0, Errorf("TypeError", "unhashable type: '%s'", o.class.name)
	}
	if !info.eq {
		return uint32(uintptrOf(o)), nil
	}
	return info.values(o).Hash()
}

// dataclassCompare compares two instances of one dataclass by their
// fields, as the generated __eq__ and (with order=True) __lt__... do.
func dataclassCompare(x, y *Instance, op syntax.Token, depth int) (result, ok bool, err error) {
	info := x.class.dataclass()
	if info == nil {
		return false, false, nil
	}
	switch op {
	case syntax.EQL, syntax.NEQ:
		if !info.eq {
			return false, false, nil
		}
	default:
		if !info.order {
			return false, false, nil
		}
	}
	r, err := starlark.CompareDepth(op, info.values(x), info.values(y), depth-1)
	return r, true, err
}

func init() { register("dataclasses", dataclassesModule) }

func dataclassesModule() starlark.StringDict {
	return starlark.StringDict{
		"dataclass":           starlark.NewBuiltin("dataclass", dataclassFn),
		"field":               starlark.NewBuiltin("field", dcFieldFn),
		"FrozenInstanceError": exceptionClasses["FrozenInstanceError"],
		"asdict":              starlark.NewBuiltin("asdict", dcAsdict),
		"astuple":             starlark.NewBuiltin("astuple", dcAstuple),
	}
}

func dcAsdict(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackPositionalArgs("asdict", args, kwargs, 1, &v); err != nil {
		return nil, err
	}
	return dcConvert(th, v, true, 0)
}

func dcAstuple(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackPositionalArgs("astuple", args, kwargs, 1, &v); err != nil {
		return nil, err
	}
	return dcConvert(th, v, false, 0)
}

// dcConvert recursively converts dataclass instances (and the lists,
// tuples and dicts holding them) as asdict/astuple do.
func dcConvert(th *starlark.Thread, v starlark.Value, dict bool, depth int) (starlark.Value, error) {
	if depth > maxReprDepth {
		return nil, Errorf("RecursionError", "maximum recursion depth exceeded")
	}
	if err := Alloc(th, elemSize); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case *Instance:
		info := x.class.dataclass()
		if info == nil {
			if depth == 0 {
				return nil, Errorf("TypeError", "asdict() should be called on dataclass instances")
			}
			return x, nil
		}
		vals := info.values(x)
		if dict {
			d := starlark.NewDict(len(vals))
			for i, f := range info.fields {
				c, err := dcConvert(th, vals[i], dict, depth+1)
				if err != nil {
					return nil, err
				}
				_ = d.SetKey(starlark.String(f.name), c)
			}
			return d, nil
		}
		out := make(starlark.Tuple, len(vals))
		for i := range vals {
			c, err := dcConvert(th, vals[i], dict, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case *starlark.List:
		out := make([]starlark.Value, x.Len())
		for i := range out {
			c, err := dcConvert(th, x.Index(i), dict, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return starlark.NewList(out), nil
	case starlark.Tuple:
		out := make(starlark.Tuple, len(x))
		for i := range out {
			c, err := dcConvert(th, x[i], dict, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case *starlark.Dict:
		d := starlark.NewDict(x.Len())
		for _, kv := range x.Items() {
			c, err := dcConvert(th, kv[1], dict, depth+1)
			if err != nil {
				return nil, err
			}
			_ = d.SetKey(kv[0], c)
		}
		return d, nil
	}
	if depth == 0 {
		return nil, Errorf("TypeError", "asdict() should be called on dataclass instances")
	}
	return v, nil
}
