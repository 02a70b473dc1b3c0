package core

import (
	"fmt"
	"strings"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Creating classes (the lowered class statement), super(), the property,
// staticmethod and classmethod decorators, and the dataclasses module.

func SaClass(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 5 || len(args) > 6 || len(kwargs) > 0 {
		return nil, Errorf(pyexc.TypeError, "%s: wrong arguments", contract.HelperClass)
	}
	name, _ := args[0].(starlark.String)
	ns, ok1 := args[1].(*starlark.Dict)
	cell, ok2 := args[2].(*Cell)
	fields, ok3 := args[3].(*starlark.List)
	box, ok4 := args[4].(*ThreadBox)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, Errorf(pyexc.TypeError, "%s: wrong arguments", contract.HelperClass)
	}
	c := &Class{PyName: string(name), Module: "__main__", Dict: make(map[string]starlark.Value, ns.Len()), box: box}
	if len(args) == 6 {
		switch b := args[5].(type) {
		case *Class:
			c.Base = b
			c.Exc = b.Exc
			c.enum = b.enum
			if b.enum && len(b.members) > 0 {
				return nil, Errorf(pyexc.TypeError, "%s: cannot extend %s", string(name), b.PyName)
			}
		case *Type:
			if b != TypeObject {
				return nil, Errorf(pyexc.TypeError, "subclassing the built-in type '%s' is not supported by the Starlark engine", b.PyName)
			}
		default:
			return nil, Errorf(pyexc.TypeError, "%s() argument 'bases' must be a class, not '%s'", string(name), TypeName(args[5]))
		}
	}
	if err := Alloc(th, objectBytes+int64(ns.Len())*dictEntryBytes); err != nil {
		return nil, err
	}
	for _, kv := range ns.Items() {
		k, _ := kv[0].(starlark.String)
		if _, unbound := kv[1].(*Cell); unbound {
			continue // bound only in a branch or loop the body did not run
		}
		c.Dict[string(k)] = kv[1]
		c.order = append(c.order, string(k))
	}
	for i := 0; i < fields.Len(); i++ {
		f, _ := fields.Index(i).(starlark.String)
		c.fields = append(c.fields, string(f))
	}
	markAbstract(th, c)
	if c.enum {
		if err := makeMembers(c); err != nil {
			return nil, err
		}
	}
	cell.v = c
	return c, nil
}

func SaSuper(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var cell, self starlark.Value
	if err := starlark.UnpackPositionalArgs(contract.HelperSuper, args, kwargs, 2, &cell, &self); err != nil {
		return nil, err
	}
	c, _ := cell.(*Cell)
	if c == nil {
		return nil, Errorf(pyexc.RuntimeError, "super(): __class__ cell not found")
	}
	class, _ := c.v.(*Class)
	if class == nil {
		return nil, Errorf(pyexc.RuntimeError, "super(): empty __class__ cell")
	}
	ok := class.IsInstance(self)
	if sc, isClass := self.(*Class); isClass {
		ok = sc.IsSubclassOf(class)
	}
	if !ok {
		return nil, Errorf(pyexc.TypeError, "super(type, obj): obj must be an instance or subtype of type")
	}
	return &superProxy{class: class, self: self}, nil
}

// Decorators.
var (
	PropertyFn = starlark.NewBuiltin("property", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
	StaticmethodFn = starlark.NewBuiltin("staticmethod", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var fn starlark.Value
		if err := starlark.UnpackPositionalArgs("staticmethod", args, kwargs, 1, &fn); err != nil {
			return nil, err
		}
		return &staticMethod{fn: fn}, nil
	})
	ClassmethodFn = starlark.NewBuiltin("classmethod", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
	// The field() options: whether the field is a parameter of
	// __init__, shown by repr, compared by ==, < ... and hashed.
	init, repr, compare, hash bool
}

// fieldSpec is what dataclasses.field() returns and dataclasses.fields()
// lists: a field's options, and its name once the class is made.
type fieldSpec struct {
	name                      string
	dflt, factory             starlark.Value
	init, repr, compare, hash bool
	hashSet                   starlark.Value // hash= as given (None: follow compare)
}

var _ starlark.HasAttrs = (*fieldSpec)(nil)

func (f *fieldSpec) String() string {
	return fmt.Sprintf("Field(name=%s,default=%s,default_factory=%s,init=%s,repr=%s,hash=%s,compare=%s)",
		reprOrMissing(starlark.String(f.name), f.name != ""), reprOrMissing(f.dflt, f.dflt != nil), reprOrMissing(f.factory, f.factory != nil),
		starlark.Bool(f.init), starlark.Bool(f.repr), f.hashSet, starlark.Bool(f.compare))
}
func (f *fieldSpec) Type() string          { return "Field" }
func (f *fieldSpec) Freeze()               {}
func (f *fieldSpec) Truth() starlark.Bool  { return true }
func (f *fieldSpec) Hash() (uint32, error) { return uint32(UintptrOf(f)), nil }
func (f *fieldSpec) AttrNames() []string {
	return []string{"compare", "default", "default_factory", "hash", "init", "name", "repr"}
}

// Attr reads a field's options, as dataclasses.Field's attributes.
func (f *fieldSpec) Attr(name string) (starlark.Value, error) {
	orMissing := func(v starlark.Value) starlark.Value {
		if v == nil {
			return dcMissing
		}
		return v
	}
	switch name {
	case "name":
		return starlark.String(f.name), nil
	case "default":
		return orMissing(f.dflt), nil
	case "default_factory":
		return orMissing(f.factory), nil
	case "init":
		return starlark.Bool(f.init), nil
	case "repr":
		return starlark.Bool(f.repr), nil
	case "compare":
		return starlark.Bool(f.compare), nil
	case "hash":
		return f.hashSet, nil
	}
	return nil, Errorf(pyexc.AttributeError, "'Field' object has no attribute '%s'", name)
}

func reprOrMissing(v starlark.Value, ok bool) string {
	if !ok {
		return "<dataclasses._MISSING_TYPE object>"
	}
	return v.String()
}

// dcMissing is dataclasses.MISSING.
var dcMissing = &Singleton{Name: "MISSING"}

func dcFieldFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var dflt, factory, kwOnly, metadata starlark.Value
	var hash starlark.Value = starlark.None
	init, repr, compare := true, true, true
	if len(args) > 0 {
		return nil, Errorf(pyexc.TypeError, "field() takes 0 positional arguments but %d were given", len(args))
	}
	if err := starlark.UnpackArgs("field", args, kwargs, "default?", &dflt, "default_factory?", &factory,
		"repr?", &repr, "compare?", &compare, "init?", &init, "hash?", &hash, "kw_only?", &kwOnly, "metadata?", &metadata); err != nil {
		return nil, err
	}
	if kwOnly != nil && kwOnly != starlark.False && kwOnly != dcMissing {
		return nil, Errorf(pyexc.TypeError, "field(kw_only=True) is not supported by the Starlark engine")
	}
	if dflt != nil && factory != nil {
		return nil, Errorf(pyexc.ValueError, "cannot specify both default and default_factory")
	}
	if dflt == dcMissing {
		dflt = nil
	}
	if factory == dcMissing {
		factory = nil
	}
	h := compare
	if hash != starlark.None {
		h = bool(hash.Truth())
	}
	return &fieldSpec{dflt: dflt, factory: factory, init: init, repr: repr, compare: compare, hash: h, hashSet: hash}, nil
}

func dataclassFn(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) > 1 {
		return nil, Errorf(pyexc.TypeError, "dataclass() takes at most 1 positional argument")
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
				return nil, Errorf(pyexc.TypeError, "dataclass(%s=False) is not supported by the Starlark engine", k)
			}
		default:
			return nil, Errorf(pyexc.TypeError, "dataclass(%s=...) is not supported by the Starlark engine", k)
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
		return nil, Errorf(pyexc.TypeError, "dataclass() should be called on a class")
	}
	if info.order && !info.eq {
		return nil, Errorf(pyexc.ValueError, "eq must be true if order is true")
	}
	if base := c.Base.dataclassOrNil(); base != nil {
		info.fields = append(info.fields, base.fields...)
	}
	for _, name := range c.fields {
		f := dcField{name: name, init: true, repr: true, compare: true, hash: true}
		if d, ok := c.Dict[name]; ok {
			if spec, ok := d.(*fieldSpec); ok {
				f.dflt, f.factory = spec.dflt, spec.factory
				f.init, f.repr, f.compare, f.hash = spec.init, spec.repr, spec.compare, spec.hash
				if spec.dflt != nil {
					c.Dict[name] = spec.dflt
				} else {
					delete(c.Dict, name)
				}
			} else {
				switch d.(type) {
				case *starlark.List, *starlark.Dict, *starlark.Set:
					return nil, Errorf(pyexc.ValueError, "mutable default %s for field %s is not allowed: use default_factory", TypeName(d), name)
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
		if !f.init {
			continue
		}
		if f.dflt != nil || f.factory != nil {
			seenDefault = true
		} else if seenDefault {
			return nil, Errorf(pyexc.TypeError, "non-default argument '%s' follows default argument", f.name)
		}
	}
	c.dc = info
	if _, ok := c.Dict["__init__"]; !ok {
		c.Dict["__init__"] = starlark.NewBuiltin("__init__", info.init)
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
		return nil, Errorf(pyexc.TypeError, "__init__() needs an instance")
	}
	args = args[1:]
	name := self.class.PyName
	var params []int // the fields __init__ takes, in order
	for i, f := range info.fields {
		if f.init {
			params = append(params, i)
		}
	}
	if len(args) > len(params) {
		return nil, Errorf(pyexc.TypeError, "%s.__init__() takes %d positional arguments but %d were given", name, len(params)+1, len(args)+1)
	}
	vals := make([]starlark.Value, len(info.fields))
	for j, v := range args {
		vals[params[j]] = v
	}
	for _, kv := range kwargs {
		k := string(kv[0].(starlark.String))
		found := false
		for i, f := range info.fields {
			if f.name == k && f.init {
				if vals[i] != nil {
					return nil, Errorf(pyexc.TypeError, "%s.__init__() got multiple values for argument '%s'", name, k)
				}
				vals[i], found = kv[1], true
			}
		}
		if !found {
			return nil, Errorf(pyexc.TypeError, "%s.__init__() got an unexpected keyword argument '%s'", name, k)
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
		case !f.init:
			// Not set: reading it is an AttributeError until the
			// program (__post_init__) sets it.
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
		return nil, Errorf(pyexc.TypeError, "%s.__init__() missing %d required positional argument%s: %s", name, len(missing), s, list)
	}
	for i, f := range info.fields {
		if vals[i] == nil {
			continue
		}
		if _, ok := self.attrs[f.name]; !ok {
			self.order = append(self.order, f.name)
		}
		self.attrs[f.name] = vals[i]
	}
	if post := self.Dunder("__post_init__"); post != nil {
		if _, err := starlark.Call(th, bind(post, self), nil, nil); err != nil {
			return nil, err
		}
	}
	self.frozen = info.frozen
	return starlark.None, nil
}

func (info *dataclassInfo) values(o *Instance) starlark.Tuple {
	return info.valuesOf(o, func(dcField) bool { return true })
}

// valuesOf is the values of the fields keep selects.
func (info *dataclassInfo) valuesOf(o *Instance, keep func(dcField) bool) starlark.Tuple {
	t := make(starlark.Tuple, 0, len(info.fields))
	for _, f := range info.fields {
		if !keep(f) {
			continue
		}
		v := o.attrs[f.name]
		if v == nil {
			v = starlark.None
		}
		t = append(t, v)
	}
	return t
}

func (info *dataclassInfo) compared(o *Instance) starlark.Tuple {
	return info.valuesOf(o, func(f dcField) bool { return f.compare })
}

func (info *dataclassInfo) repr(th *starlark.Thread, o *Instance) (string, error) {
	var b strings.Builder
	b.WriteString(o.class.PyName + "(")
	vals := info.values(o)
	n := 0
	for i, f := range info.fields {
		if !f.repr {
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		v := vals[i]
		if _, set := o.attrs[f.name]; !set {
			return "", Errorf(pyexc.AttributeError, "'%s' object has no attribute '%s'", o.class.PyName, f.name)
		}
		s, err := ReprValue(th, v)
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
		return 0, Errorf(pyexc.TypeError, "unhashable type: '%s'", o.class.PyName)
	}
	if !info.eq {
		return uint32(UintptrOf(o)), nil
	}
	return info.valuesOf(o, func(f dcField) bool { return f.hash }).Hash()
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
	r, err := starlark.CompareDepth(op, info.compared(x), info.compared(y), depth-1)
	return r, true, err
}

func DataclassesModule() starlark.StringDict {
	return starlark.StringDict{
		"dataclass": starlark.NewBuiltin("dataclass", dataclassFn),
		"field":     starlark.NewBuiltin("field", dcFieldFn),
		"asdict":    starlark.NewBuiltin("asdict", dcAsdict),
		"astuple":   starlark.NewBuiltin("astuple", dcAstuple),
		"replace":   starlark.NewBuiltin("replace", dcReplace),
		"fields":    starlark.NewBuiltin("fields", dcFields),
		"is_dataclass": starlark.NewBuiltin("is_dataclass", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var v starlark.Value
			if err := starlark.UnpackPositionalArgs("is_dataclass", args, kwargs, 1, &v); err != nil {
				return nil, err
			}
			_, info := dataclassOf(v)
			return starlark.Bool(info != nil), nil
		}),
		"MISSING":             dcMissing,
		"FrozenInstanceError": ExceptionClass(pyexc.FrozenInstanceError),
	}
}

// dataclassOf returns the class of a dataclass or of one of its
// instances, with its settings; info is nil for anything else.
func dataclassOf(v starlark.Value) (*Class, *dataclassInfo) {
	switch x := v.(type) {
	case *Instance:
		return x.class, x.class.dataclass()
	case *Class:
		return x, x.dataclass()
	}
	return nil, nil
}

// dcFields is dataclasses.fields(class or instance).
func dcFields(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackPositionalArgs("fields", args, kwargs, 1, &v); err != nil {
		return nil, err
	}
	_, info := dataclassOf(v)
	if info == nil {
		return nil, Errorf(pyexc.TypeError, "must be called with a dataclass type or instance")
	}
	if err := Alloc(th, int64(len(info.fields))*(ElemSize+objectBytes)); err != nil {
		return nil, err
	}
	out := make(starlark.Tuple, len(info.fields))
	for i, f := range info.fields {
		hs := starlark.Value(starlark.None)
		if f.hash != f.compare {
			hs = starlark.Bool(f.hash)
		}
		out[i] = &fieldSpec{name: f.name, dflt: f.dflt, factory: f.factory, init: f.init, repr: f.repr, compare: f.compare, hash: f.hash, hashSet: hs}
	}
	return out, nil
}

// dcReplace is dataclasses.replace(obj, **changes): a new instance made
// by the class's __init__ from obj's init fields, changes applied.
func dcReplace(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 1 {
		return nil, Errorf(pyexc.TypeError, "replace() takes 1 positional argument but %d were given", len(args))
	}
	obj, ok := args[0].(*Instance)
	var info *dataclassInfo
	if ok {
		info = obj.class.dataclass()
	}
	if info == nil {
		return nil, Errorf(pyexc.TypeError, "replace() should be called on dataclass instances")
	}
	changed := map[string]bool{}
	for _, kv := range kwargs {
		k := string(kv[0].(starlark.String))
		changed[k] = true
		for _, f := range info.fields {
			if f.name == k && !f.init {
				return nil, Errorf(pyexc.ValueError, "field %s is declared with init=False, it cannot be specified with replace()", k)
			}
		}
	}
	kw := append([]starlark.Tuple(nil), kwargs...)
	for _, f := range info.fields {
		if !f.init || changed[f.name] {
			continue
		}
		v, ok := obj.attrs[f.name]
		if !ok {
			return nil, Errorf(pyexc.AttributeError, "'%s' object has no attribute '%s'", obj.class.PyName, f.name)
		}
		kw = append(kw, starlark.Tuple{starlark.String(f.name), v})
	}
	return starlark.Call(th, obj.class, nil, kw)
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
		return nil, Errorf(pyexc.RecursionError, "maximum recursion depth exceeded")
	}
	if err := Alloc(th, ElemSize); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case *Instance:
		info := x.class.dataclass()
		if info == nil {
			if depth == 0 {
				return nil, Errorf(pyexc.TypeError, "asdict() should be called on dataclass instances")
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
		return nil, Errorf(pyexc.TypeError, "asdict() should be called on dataclass instances")
	}
	return v, nil
}
