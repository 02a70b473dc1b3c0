package builtins

import (
	"fmt"
	"sync"

	"go.starlark.net/starlark"
)

// Type is a Python type object such as int, str or dict. Calling it
// converts or constructs a value; isinstance and type(x) == T work with it
// because type() returns the same *Type for every value of the type.
type Type struct {
	name  string
	base  *Type
	new   func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)
	has   func(v starlark.Value) bool
	attrs map[string]starlark.Value // class attributes such as dict.fromkeys
	// methods are the instance methods reachable unbound, as in
	// map(str.upper, xs): the receiver becomes the first argument.
	methods map[string]*starlark.Builtin
}

// Typed is implemented by values whose Python type is not one of
// go.starlark.net's own (the front end's class instances, module objects
// such as datetime.date): type(v) returns PyType().
type Typed interface {
	starlark.Value
	PyType() starlark.Value
}

// InstanceChecker is implemented by type objects defined outside this
// package (the front end's classes) so that isinstance accepts them.
type InstanceChecker interface {
	starlark.Value
	IsInstance(v starlark.Value) bool
}

// SubclassChecker is implemented by type objects that take part in
// issubclass.
type SubclassChecker interface {
	starlark.Value
	IsSubclassOf(t starlark.Value) bool
}

var (
	_ starlark.Callable = (*Type)(nil)
	_ starlark.HasAttrs = (*Type)(nil)
)

// Name returns the Python name of the type, e.g. "int".
func (t *Type) Name() string { return t.name }

func (t *Type) String() string        { return "<class '" + t.name + "'>" }
func (t *Type) Type() string          { return "type" }
func (t *Type) Freeze()               {}
func (t *Type) Truth() starlark.Bool  { return true }
func (t *Type) Hash() (uint32, error) { return starlark.String(t.name).Hash() }

// PyType makes type(int) return type.
func (t *Type) PyType() starlark.Value { return typeType }

// IsInstance reports whether v is an instance of t (subclasses included).
func (t *Type) IsInstance(v starlark.Value) bool {
	if t == typeObject {
		return true
	}
	if t.has != nil {
		return t.has(v)
	}
	vt, ok := typeOf(v).(*Type)
	for ok && vt != nil {
		if vt == t {
			return true
		}
		vt = vt.base
	}
	return false
}

// IsSubclassOf reports whether t is other or derives from it.
func (t *Type) IsSubclassOf(other starlark.Value) bool {
	for b := t; b != nil; b = b.base {
		if starlark.Value(b) == other {
			return true
		}
	}
	return other == starlark.Value(typeObject)
}

// CallInternal constructs or converts, as calling the type does in Python.
func (t *Type) CallInternal(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if t.new == nil {
		return nil, Errorf("TypeError", "cannot create '%s' instances", t.name)
	}
	return t.new(th, args, kwargs)
}

// Attr returns class attributes (dict.fromkeys) and unbound methods
// (str.upper).
func (t *Type) Attr(name string) (starlark.Value, error) {
	if v, ok := t.attrs[name]; ok {
		return v, nil
	}
	if m, ok := t.methods[name]; ok {
		return unboundMethod(t, name, m), nil
	}
	if name == "__name__" {
		return starlark.String(t.name), nil
	}
	return nil, Errorf("AttributeError", "type object '%s' has no attribute '%s'", t.name, name)
}

// AttrNames lists the class attributes and methods.
func (t *Type) AttrNames() []string {
	names := make([]string, 0, len(t.attrs)+len(t.methods))
	for k := range t.attrs {
		names = append(names, k)
	}
	for k := range t.methods {
		names = append(names, k)
	}
	return names
}

// unboundMethod turns method m of t into a function whose first argument
// is the receiver, type-checked as Python does.
func unboundMethod(t *Type, name string, m *starlark.Builtin) *starlark.Builtin {
	return starlark.NewBuiltin(t.name+"."+name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) == 0 {
			return nil, Errorf("TypeError", "unbound method %s.%s() needs an argument", t.name, name)
		}
		if !t.IsInstance(args[0]) {
			return nil, Errorf("TypeError", "descriptor '%s' for '%s' objects doesn't apply to a '%s' object", name, t.name, TypeName(args[0]))
		}
		return starlark.Call(th, m.BindReceiver(args[0]), args[1:], kwargs)
	})
}

// The built-in type objects. Their constructors and methods are attached
// in init functions of the files that implement them.
var (
	typeObject   = &Type{name: "object"}
	typeType     = &Type{name: "type", base: typeObject}
	typeInt      = &Type{name: "int", base: typeObject}
	typeBool     = &Type{name: "bool", base: typeInt}
	typeFloat    = &Type{name: "float", base: typeObject}
	typeStr      = &Type{name: "str", base: typeObject}
	typeBytes    = &Type{name: "bytes", base: typeObject}
	typeList     = &Type{name: "list", base: typeObject}
	typeTuple    = &Type{name: "tuple", base: typeObject}
	typeDict     = &Type{name: "dict", base: typeObject}
	typeSet      = &Type{name: "set", base: typeObject}
	typeNone     = &Type{name: "NoneType", base: typeObject}
	typeRange    = &Type{name: "range", base: typeObject}
	typeFunction = &Type{name: "function", base: typeObject}
	typeBuiltin  = &Type{name: "builtin_function_or_method", base: typeObject}
	typeModule   = &Type{name: "module", base: typeObject}
	typeSlice    = &Type{name: "slice", base: typeObject}
)

// otherTypes caches the type objects of values this package does not know
// (e.g. the engine's tool values), so that type(a) == type(b) holds for
// two values of one kind. Entries are immutable once stored.
var otherTypes sync.Map // string -> *Type

// typeOf returns the Python type object of v.
func typeOf(v starlark.Value) starlark.Value {
	switch v := v.(type) {
	case starlark.NoneType:
		return typeNone
	case starlark.Bool:
		return typeBool
	case starlark.Int:
		return typeInt
	case starlark.Float:
		return typeFloat
	case starlark.String:
		return typeStr
	case starlark.Bytes:
		return typeBytes
	case *starlark.List:
		return typeList
	case starlark.Tuple:
		return typeTuple
	case *starlark.Dict:
		return typeDict
	case *starlark.Set:
		return typeSet
	case *starlark.Function:
		return typeFunction
	case *starlark.Builtin:
		return typeBuiltin
	case Typed:
		return v.PyType()
	}
	if v.Type() == "range" {
		return typeRange
	}
	name := v.Type()
	if t, ok := otherTypes.Load(name); ok {
		return t.(*Type)
	}
	t, _ := otherTypes.LoadOrStore(name, &Type{name: name, base: typeObject})
	return t.(*Type)
}

// TypeName returns the Python name of v's type ("str" for a Starlark
// string), for error messages.
func TypeName(v starlark.Value) string {
	switch t := typeOf(v).(type) {
	case *Type:
		return t.name
	case interface{ Name() string }:
		return t.Name()
	}
	return v.Type()
}

// isInstance implements isinstance(v, t) for a type or a tuple of types.
func isInstance(v, t starlark.Value) (bool, error) {
	switch t := t.(type) {
	case starlark.Tuple:
		for _, e := range t {
			ok, err := isInstance(v, e)
			if ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	case InstanceChecker:
		return t.IsInstance(v), nil
	}
	return false, Errorf("TypeError", "isinstance() arg 2 must be a type, a tuple of types, or a union")
}

func isSubclass(c, t starlark.Value) (bool, error) {
	sc, ok := c.(SubclassChecker)
	if !ok {
		return false, Errorf("TypeError", "issubclass() arg 1 must be a class")
	}
	switch t := t.(type) {
	case starlark.Tuple:
		for _, e := range t {
			ok, err := isSubclass(c, e)
			if ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	case InstanceChecker:
		return sc.IsSubclassOf(t), nil
	}
	return false, Errorf("TypeError", "issubclass() arg 2 must be a class, a tuple of classes, or a union")
}

func typeErrorf(format string, args ...any) error {
	return &Error{Type: "TypeError", Msg: fmt.Sprintf(format, args...)}
}
