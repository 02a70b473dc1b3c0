package core

import (
	"strings"
	"sync"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Type is a Python type object such as int, str or dict. Calling it
// converts or constructs a value; isinstance and type(x) == T work with it
// because type() returns the same *Type for every value of the type.
type Type struct {
	PyName string
	Base   *Type
	New    func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)
	has    func(v starlark.Value) bool
	Attrs  map[string]starlark.Value // class attributes such as dict.fromkeys
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
func (t *Type) Name() string { return t.PyName }

func (t *Type) String() string        { return "<class '" + t.PyName + "'>" }
func (t *Type) Type() string          { return "type" }
func (t *Type) Freeze()               {}
func (t *Type) Truth() starlark.Bool  { return true }
func (t *Type) Hash() (uint32, error) { return starlark.String(t.PyName).Hash() }

// PyType makes type(int) return type.
func (t *Type) PyType() starlark.Value { return TypeType }

// IsInstance reports whether v is an instance of t (subclasses included).
func (t *Type) IsInstance(v starlark.Value) bool {
	if t == TypeObject {
		return true
	}
	if t.has != nil {
		return t.has(v)
	}
	vt, ok := TypeOf(v).(*Type)
	for ok && vt != nil {
		if vt == t {
			return true
		}
		vt = vt.Base
	}
	return false
}

// IsSubclassOf reports whether t is other or derives from it.
func (t *Type) IsSubclassOf(other starlark.Value) bool {
	for b := t; b != nil; b = b.Base {
		if starlark.Value(b) == other {
			return true
		}
	}
	return other == starlark.Value(TypeObject)
}

// CallInternal constructs or converts, as calling the type does in Python.
func (t *Type) CallInternal(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if t.New == nil {
		return nil, Errorf(pyexc.TypeError, "cannot create '%s' instances", t.PyName)
	}
	return t.New(th, args, kwargs)
}

// BorrowsArgs reports the types whose constructors neither keep nor
// modify their argument slice (starlark.ArgsBorrower): str(x), int(x),
// float(x) and bool(x) sit in hot loops.
func (t *Type) BorrowsArgs() bool {
	return t == TypeStr || t == TypeInt || t == TypeFloat || t == TypeBool
}

// Attr returns class attributes (dict.fromkeys) and unbound methods
// (str.upper).
func (t *Type) Attr(name string) (starlark.Value, error) {
	if v, ok := t.Attrs[name]; ok {
		return v, nil
	}
	if m, ok := t.methods[name]; ok {
		return unboundMethod(t, name, m), nil
	}
	if name == "__name__" {
		// A module's type is named without its module:
		// type(collections.OrderedDict()).__name__ is 'OrderedDict'.
		return starlark.String(t.PyName[strings.LastIndexByte(t.PyName, '.')+1:]), nil
	}
	return nil, Errorf(pyexc.AttributeError, "type object '%s' has no attribute '%s'", t.PyName, name)
}

// AttrNames lists the class attributes and methods.
func (t *Type) AttrNames() []string {
	names := make([]string, 0, len(t.Attrs)+len(t.methods))
	for k := range t.Attrs {
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
	return starlark.NewBuiltin(t.PyName+"."+name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) == 0 {
			return nil, Errorf(pyexc.TypeError, "unbound method %s.%s() needs an argument", t.PyName, name)
		}
		if !t.IsInstance(args[0]) {
			return nil, Errorf(pyexc.TypeError, "descriptor '%s' for '%s' objects doesn't apply to a '%s' object", name, t.PyName, TypeName(args[0]))
		}
		return starlark.Call(th, m.BindReceiver(args[0]), args[1:], kwargs)
	})
}

// The built-in type objects. Their constructors and methods are attached
// in init functions of the files that implement them.
var (
	TypeObject   = &Type{PyName: "object"}
	TypeType     = &Type{PyName: "type", Base: TypeObject}
	TypeInt      = &Type{PyName: "int", Base: TypeObject}
	TypeBool     = &Type{PyName: "bool", Base: TypeInt}
	TypeFloat    = &Type{PyName: "float", Base: TypeObject}
	TypeStr      = &Type{PyName: "str", Base: TypeObject}
	TypeBytes    = &Type{PyName: "bytes", Base: TypeObject}
	TypeList     = &Type{PyName: "list", Base: TypeObject}
	TypeTuple    = &Type{PyName: "tuple", Base: TypeObject}
	TypeDict     = &Type{PyName: "dict", Base: TypeObject}
	TypeSet      = &Type{PyName: "set", Base: TypeObject}
	typeNone     = &Type{PyName: "NoneType", Base: TypeObject}
	TypeRange    = &Type{PyName: "range", Base: TypeObject}
	typeFunction = &Type{PyName: "function", Base: TypeObject}
	typeBuiltin  = &Type{PyName: "builtin_function_or_method", Base: TypeObject}
	typeModule   = &Type{PyName: "module", Base: TypeObject}
	TypeSlice    = &Type{PyName: "slice", Base: TypeObject}
)

// otherTypes caches the type objects of values this package does not know
// (e.g. the engine's tool values), so that type(a) == type(b) holds for
// two values of one kind. Entries are immutable once stored.
var otherTypes sync.Map // string -> *Type

// TypeOf returns the Python type object of v.
func TypeOf(v starlark.Value) starlark.Value {
	switch v := v.(type) {
	case starlark.NoneType:
		return typeNone
	case starlark.Bool:
		return TypeBool
	case starlark.Int:
		return TypeInt
	case starlark.Float:
		return TypeFloat
	case starlark.String:
		return TypeStr
	case starlark.Bytes:
		return TypeBytes
	case *starlark.List:
		return TypeList
	case starlark.Tuple:
		return TypeTuple
	case *starlark.Dict:
		return TypeDict
	case *starlark.Set:
		return TypeSet
	case *starlark.Function:
		return typeFunction
	case *starlark.Builtin:
		return typeBuiltin
	case Typed:
		return v.PyType()
	}
	if v.Type() == "range" {
		return TypeRange
	}
	name := v.Type()
	if t, ok := otherTypes.Load(name); ok {
		return t.(*Type)
	}
	t, _ := otherTypes.LoadOrStore(name, &Type{PyName: name, Base: TypeObject})
	return t.(*Type)
}

// TypeName returns the Python name of v's type ("str" for a Starlark
// string), for error messages.
func TypeName(v starlark.Value) string {
	switch t := TypeOf(v).(type) {
	case *Type:
		return t.PyName
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
	return false, Errorf(pyexc.TypeError, "isinstance() arg 2 must be a type, a tuple of types, or a union")
}

func isSubclass(c, t starlark.Value) (bool, error) {
	sc, ok := c.(SubclassChecker)
	if !ok {
		return false, Errorf(pyexc.TypeError, "issubclass() arg 1 must be a class")
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
	return false, Errorf(pyexc.TypeError, "issubclass() arg 2 must be a class, a tuple of classes, or a union")
}
