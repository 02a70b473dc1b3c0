package core

// Python classes for the front end's class statement: class objects,
// instances, bound methods, property/staticmethod/classmethod and super().
//
// A class body is lowered to a function that returns the namespace as a
// dict; __sa_class turns it into a *Class. Instances keep their
// attributes in a Go map, so user code can reach only the attributes it
// set and the class's own: there is no __dict__, __class__ or any other
// reflective attribute (the front end refuses those names, and Attr
// below never produces them).
//
// Several go.starlark.net interfaces that instances implement to honour
// user dunders (CompareSameType for __eq__, Attr for @property, Hash,
// Truth, Index...) are called without a thread. Those calls run the user
// method on the thread of the execution in progress, found through the
// class's ThreadBox (thread.go).

import (
	"fmt"
	"sort"
	"strings"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Class is a Python class: a user class from a class statement or a
// built-in exception class.
type Class struct {
	PyName   string
	Module   string // "" for built-in classes, "__main__" for user ones
	Base     *Class // nil: derives from object only
	Dict     map[string]starlark.Value
	order    []string       // dict keys in definition order
	Exc      bool           // derives from BaseException
	fields   []string       // annotated names in the body, for dataclasses
	dc       *dataclassInfo // set by @dataclass
	box      *ThreadBox     // where thread-less calls find a thread (thread.go)
	enum     bool           // Enum or a subclass: see enum.go
	members  []*Instance    // an enum's members in definition order
	enumData *enumInfo      // an enum's flag masks and pseudo-members
	abstract []string       // names @abstractmethod marked in the body (abc.go)
}

// shared reports a class the runtime defines (a built-in exception
// class, enum.Enum): one object shared by every execution in the
// process, which user code must not change.
func (c *Class) shared() bool { return c.Module != "__main__" }

// dataclass returns the dataclass settings c has or inherits, or nil.
func (c *Class) dataclass() *dataclassInfo {
	for k := c; k != nil; k = k.Base {
		if k.dc != nil {
			return k.dc
		}
	}
	return nil
}

var (
	_ starlark.Callable    = (*Class)(nil)
	_ starlark.HasAttrs    = (*Class)(nil)
	_ starlark.HasSetField = (*Class)(nil)
	_ InstanceChecker      = (*Class)(nil)
	_ SubclassChecker      = (*Class)(nil)
	_ Typed                = (*Class)(nil)
)

// Name returns the class name.
func (c *Class) Name() string { return c.PyName }

func (c *Class) String() string {
	if c.enum {
		return c.enumClassString()
	}
	if c.Module != "" {
		return "<class '" + c.Module + "." + c.PyName + "'>"
	}
	return "<class '" + c.PyName + "'>"
}
func (c *Class) Type() string           { return "type" }
func (c *Class) Freeze()                {}
func (c *Class) Truth() starlark.Bool   { return true }
func (c *Class) Hash() (uint32, error)  { return starlark.String(c.PyName).Hash() }
func (c *Class) PyType() starlark.Value { return TypeType }

// IsException reports whether c derives from BaseException.
func (c *Class) IsException() bool { return c.Exc }

// lookup finds name in c or its bases.
func (c *Class) lookup(name string) (starlark.Value, *Class) {
	for k := c; k != nil; k = k.Base {
		if v, ok := k.Dict[name]; ok {
			return v, k
		}
	}
	return nil, nil
}

// IsInstance implements isinstance(v, c).
func (c *Class) IsInstance(v starlark.Value) bool {
	inst, ok := v.(*Instance)
	return ok && inst.class.IsSubclassOf(c)
}

// IsSubclassOf implements issubclass(c, t).
func (c *Class) IsSubclassOf(t starlark.Value) bool {
	for k := c; k != nil; k = k.Base {
		if starlark.Value(k) == t {
			return true
		}
	}
	return t == starlark.Value(TypeObject)
}

// Attr returns a class attribute: functions unbound, as in Python 3.
func (c *Class) Attr(name string) (starlark.Value, error) {
	if name == "__name__" {
		return starlark.String(c.PyName), nil
	}
	v, _ := c.lookup(name)
	switch v := v.(type) {
	case nil:
		return nil, Errorf(pyexc.AttributeError, "type object '%s' has no attribute '%s'", c.PyName, name)
	case *staticMethod:
		return v.fn, nil
	case *classMethod:
		return &BoundMethod{fn: v.fn, self: c}, nil
	}
	return v, nil
}

// AttrNames lists the class's attributes.
func (c *Class) AttrNames() []string {
	seen := map[string]bool{}
	var names []string
	for k := c; k != nil; k = k.Base {
		for _, n := range k.order {
			if !seen[n] && !strings.HasPrefix(n, "__") {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names
}

// SetField sets a class attribute (Counter.count = 0).
func (c *Class) SetField(name string, v starlark.Value) error {
	if c.shared() {
		// Built-in classes are shared by every execution in the process.
		return Errorf(pyexc.TypeError, "cannot set '%s' attribute of immutable type '%s'", name, c.PyName)
	}
	if strings.HasPrefix(name, "__") {
		return Errorf(pyexc.AttributeError, "access to attribute '%s' is not allowed", name)
	}
	if _, ok := c.Dict[name]; !ok {
		c.order = append(c.order, name)
	}
	c.Dict[name] = v
	return nil
}

// CallInternal creates an instance and runs __init__.
func (c *Class) CallInternal(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if c.enum {
		return c.enumLookup(args, kwargs)
	}
	if err := c.checkAbstract(); err != nil {
		return nil, err
	}
	if err := Alloc(th, objectBytes); err != nil {
		return nil, err
	}
	inst := &Instance{class: c, attrs: map[string]starlark.Value{}}
	if c.Exc {
		inst.args = args
	}
	init, _ := c.lookup("__init__")
	if init == nil {
		if !c.Exc && (len(args) > 0 || len(kwargs) > 0) {
			return nil, Errorf(pyexc.TypeError, "%s() takes no arguments", c.PyName)
		}
		return inst, nil
	}
	r, err := starlark.Call(th, init, append(starlark.Tuple{inst}, args...), kwargs)
	if err != nil {
		return nil, err
	}
	if r != starlark.None {
		return nil, Errorf(pyexc.TypeError, "__init__() should return None, not '%s'", TypeName(r))
	}
	return inst, nil
}

// objectBytes is what an instance costs the memory budget before its
// attributes.
const objectBytes = 64

// Instance is an object of a Class.
type Instance struct {
	class  *Class
	attrs  map[string]starlark.Value
	order  []string       // attribute names in assignment order
	args   starlark.Tuple // exceptions: the args attribute
	cause  starlark.Value // exceptions: __cause__ (raise ... from ...)
	frozen bool           // after a frozen dataclass's __init__
	raised error          // exceptions: the error it was last raised with
}

var (
	_ starlark.HasAttrs    = (*Instance)(nil)
	_ starlark.HasSetField = (*Instance)(nil)
	_ starlark.Comparable  = (*Instance)(nil)
	_ starlark.HasBinary   = (*Instance)(nil)
	_ starlark.Mapping     = (*Instance)(nil)
	_ starlark.Iterable    = (*Instance)(nil)
	_ starlark.Callable    = (*Instance)(nil)
	_ Representer          = (*Instance)(nil)
	_ Typed                = (*Instance)(nil)
)

// Class returns the instance's class.
func (o *Instance) Class() *Class { return o.class }

// Args returns an exception's args.
func (o *Instance) Args() starlark.Tuple { return o.args }

func (o *Instance) Type() string           { return o.class.PyName }
func (o *Instance) PyType() starlark.Value { return o.class }
func (o *Instance) Freeze()                {}

// String is the repr as if the class defined no __repr__: Go callers
// (error messages, fallbacks of Repr) never run user code through it.
func (o *Instance) String() string {
	s, err := o.defaultRepr(scratchThread("repr"))
	if err != nil {
		return fmt.Sprintf("<%s object at %p>", o.class.PyName, o)
	}
	return s
}

// SizeOf lets the engine's memory walk see the instance's attributes.
func (o *Instance) SizeOf(visit func(starlark.Value)) int64 {
	for _, v := range o.attrs {
		visit(v)
	}
	for _, v := range o.args {
		visit(v)
	}
	return objectBytes + int64(len(o.attrs))*dictEntryBytes
}

const dictEntryBytes = DictEntrySize

// Dunder looks up a special method defined by a user class.
func (o *Instance) Dunder(name string) starlark.Value {
	v, owner := o.class.lookup(name)
	if owner == nil || owner.shared() {
		return nil // built-in exception classes define none that matter here
	}
	return v
}

// CallDunder calls a user special method on o. ok is false when the class
// does not define it.
func (o *Instance) CallDunder(th *starlark.Thread, name string, args ...starlark.Value) (v starlark.Value, ok bool, err error) {
	m := o.Dunder(name)
	if m == nil {
		return nil, false, nil
	}
	if th = o.class.userThread(th); th == nil {
		return nil, true, Errorf(pyexc.RuntimeError, "%s.%s cannot run outside an execution", o.class.PyName, name)
	}
	v, err = starlark.Call(th, bind(m, o), args, nil)
	return v, true, err
}

// bind binds a class attribute to an instance as attribute lookup does.
func bind(v starlark.Value, self starlark.Value) starlark.Value {
	switch v := v.(type) {
	case *starlark.Function, *starlark.Builtin, *Wrapped:
		return &BoundMethod{fn: v.(starlark.Callable), self: self}
	case *staticMethod:
		return v.fn
	case *classMethod:
		if inst, ok := self.(*Instance); ok {
			return &BoundMethod{fn: v.fn, self: inst.class}
		}
		return &BoundMethod{fn: v.fn, self: self}
	}
	return v
}

// Attr reads an attribute: the instance's own, then the class's.
func (o *Instance) Attr(name string) (starlark.Value, error) {
	if v, ok := o.attrs[name]; ok {
		return v, nil
	}
	if v, _ := o.class.lookup(name); v != nil {
		if p, ok := v.(*property); ok {
			th := o.class.thread()
			if th == nil {
				return nil, Errorf(pyexc.RuntimeError, "property %s cannot run outside an execution", name)
			}
			return starlark.Call(th, p.get, starlark.Tuple{o}, nil)
		}
		return bind(v, o), nil
	}
	if o.class.Exc && name == "args" {
		return o.args, nil
	}
	return nil, Errorf(pyexc.AttributeError, "'%s' object has no attribute '%s'", o.class.PyName, name)
}

// AttrNames lists the instance's attributes and its class's.
func (o *Instance) AttrNames() []string {
	names := append([]string(nil), o.order...)
	names = append(names, o.class.AttrNames()...)
	sort.Strings(names)
	return names
}

// SetField assigns an attribute, through a property's setter if the class
// defines one.
func (o *Instance) SetField(name string, v starlark.Value) error {
	if strings.HasPrefix(name, "__") {
		return Errorf(pyexc.AttributeError, "access to attribute '%s' is not allowed", name)
	}
	if o.class.enum {
		if err := o.enumSetField(name); err != nil {
			return err
		}
	} else if o.frozen {
		return Errorf(pyexc.FrozenInstanceError, "cannot assign to field '%s'", name)
	}
	if pv, _ := o.class.lookup(name); pv != nil {
		if p, ok := pv.(*property); ok {
			if p.set == nil {
				return Errorf(pyexc.AttributeError, "property '%s' of '%s' object has no setter", name, o.class.PyName)
			}
			th := o.class.thread()
			if th == nil {
				return Errorf(pyexc.RuntimeError, "property %s cannot run outside an execution", name)
			}
			_, err := starlark.Call(th, p.set, starlark.Tuple{o, v}, nil)
			return err
		}
	}
	if o.class.Exc && name == "args" {
		t, ok := v.(starlark.Tuple)
		if !ok {
			return Errorf(pyexc.TypeError, "args must be a tuple")
		}
		o.args = t
		return nil
	}
	if _, ok := o.attrs[name]; !ok {
		if th := o.class.thread(); th != nil {
			if err := Alloc(th, dictEntryBytes); err != nil {
				return err
			}
		}
		o.order = append(o.order, name)
	}
	o.attrs[name] = v
	return nil
}

// PyStr is str(o): __str__, else the exception message, else repr.
func (o *Instance) PyStr(th *starlark.Thread) (string, error) {
	if v, ok, err := o.CallDunder(th, "__str__"); ok {
		return stringResult("__str__", v, err)
	}
	if o.class.enum {
		return o.enumStr(th)
	}
	if o.class.Exc {
		switch len(o.args) {
		case 0:
			return "", nil
		case 1:
			if o.class.IsSubclassOf(excKeyError) {
				return ReprValue(th, o.args[0])
			}
			return StrValue(th, o.args[0])
		}
		return ReprValue(th, o.args)
	}
	return o.PyRepr(th)
}

// PyRepr is repr(o): __repr__, else ValueError('msg') for exceptions,
// else the default <__main__.C object at 0x...>.
func (o *Instance) PyRepr(th *starlark.Thread) (string, error) {
	if v, ok, err := o.CallDunder(th, "__repr__"); ok {
		return stringResult("__repr__", v, err)
	}
	return o.defaultRepr(th)
}

// defaultRepr is the repr a class without __repr__ gets.
func (o *Instance) defaultRepr(th *starlark.Thread) (string, error) {
	if dc := o.class.dataclass(); dc != nil {
		return dc.repr(th, o)
	}
	if o.class.enum {
		return o.enumRepr(th)
	}
	if o.class.Exc {
		if len(o.args) == 1 {
			s, err := ReprValue(th, o.args[0])
			return o.class.PyName + "(" + s + ")", err
		}
		s, err := ReprValue(th, o.args)
		return o.class.PyName + s, err
	}
	return fmt.Sprintf("<%s.%s object at %s>", o.class.Module, o.class.PyName, Address(o)), nil
}

func stringResult(name string, v starlark.Value, err error) (string, error) {
	if err != nil {
		return "", err
	}
	s, ok := v.(starlark.String)
	if !ok {
		return "", Errorf(pyexc.TypeError, "%s returned non-string (type %s)", name, TypeName(v))
	}
	return string(s), nil
}

// PyFormat implements format(o, spec) and f-strings: __format__ if
// defined, else str(o) formatted as a string.
func (o *Instance) PyFormat(th *starlark.Thread, spec string) (string, error) {
	if v, ok, err := o.CallDunder(th, "__format__", starlark.String(spec)); ok {
		return stringResult("__format__", v, err)
	}
	if o.class.enum {
		if s, ok, err := o.enumFormat(th, spec); ok {
			return s, err
		}
	}
	if spec != "" && !o.class.enum {
		// object.__format__ takes only an empty spec (Enum.__format__
		// formats the member's str with it).
		return "", Errorf(pyexc.TypeError, "unsupported format string passed to %s.__format__", o.class.PyName)
	}
	s, err := o.PyStr(th)
	if err != nil || spec == "" {
		return s, err
	}
	return FormatValue(th, starlark.String(s), spec)
}

// Truth is __bool__, else __len__ != 0, else True.
func (o *Instance) Truth() starlark.Bool {
	if v, ok, err := o.CallDunder(nil, "__bool__"); ok {
		b, isBool := v.(starlark.Bool)
		return starlark.Bool(err == nil && isBool && bool(b))
	}
	if v, ok, err := o.CallDunder(nil, "__len__"); ok {
		n, isInt := v.(starlark.Int)
		return starlark.Bool(err == nil && isInt && n.Sign() != 0)
	}
	if o.class.enum {
		b, _ := o.enumTruth()
		return b
	}
	return true
}

// TruthErr is Truth with the error of a __bool__ or __len__ that
// raised, for the interpreter's conditions (starlark.FallibleTruth).
func (o *Instance) TruthErr() (starlark.Bool, error) {
	t, err := Truth(nil, o)
	return starlark.Bool(t), err
}

// CompareOther is o op y for y of another type (starlark.CrossComparable),
// so that y in [o], [o] == [y] and dict lookups ask o's __eq__ as Python
// does, its exception included, and o < 1 asks o's __lt__ (1 < o asks
// __gt__). ok is false when o has no such dunder or it returned
// NotImplemented.
func (o *Instance) CompareOther(op syntax.Token, y starlark.Value, depth int) (bool, bool, error) {
	if o.class.enum {
		if r, ok, err := o.enumCompare(op, y, depth); ok {
			return r, true, err
		}
	}
	name := "__eq__"
	switch op {
	case syntax.NEQ:
		if o.Dunder("__ne__") != nil {
			name = "__ne__"
		}
	case syntax.LT, syntax.LE, syntax.GT, syntax.GE:
		name = cmpDunders[op][0]
	}
	v, ok, err := o.CallDunder(nil, name, y)
	if !ok || err != nil || v == NotImplemented {
		return false, err != nil, err
	}
	t, err := Truth(nil, v)
	if op == syntax.NEQ && name == "__eq__" {
		t = !t
	}
	return t, true, err
}

// Hash is __hash__; instances of classes that define __eq__ without
// __hash__ are unhashable, as in Python; otherwise identity.
func (o *Instance) Hash() (uint32, error) {
	if v, ok, err := o.CallDunder(nil, "__hash__"); ok {
		if err != nil {
			return 0, err
		}
		n, isInt := v.(starlark.Int)
		if !isInt {
			return 0, Errorf(pyexc.TypeError, "__hash__ method should return an integer")
		}
		return uint32(n.BigInt().Uint64()), nil
	}
	if o.Dunder("__eq__") != nil {
		return 0, Errorf(pyexc.TypeError, "unhashable type: '%s'", o.class.PyName)
	}
	if dc := o.class.dataclass(); dc != nil {
		return dc.hash(o)
	}
	return uint32(UintptrOf(o)), nil
}

var cmpDunders = map[syntax.Token][2]string{
	syntax.EQL: {"__eq__", "__eq__"},
	syntax.NEQ: {"__ne__", "__ne__"},
	syntax.LT:  {"__lt__", "__gt__"},
	syntax.LE:  {"__le__", "__ge__"},
	syntax.GT:  {"__gt__", "__lt__"},
	syntax.GE:  {"__ge__", "__le__"},
}

// CompareSameType runs __eq__, __lt__, ... (or a dataclass's generated
// comparisons), falling back to identity for == and != as Python does.
func (o *Instance) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	other, _ := y.(*Instance)
	names := cmpDunders[op]
	if o.class.enum && o.Dunder(names[0]) == nil {
		if r, ok, err := o.enumCompare(op, y, depth); ok {
			return r, err
		}
	}
	if v, ok, err := o.CallDunder(nil, names[0], y); ok {
		if err != nil {
			return false, err
		}
		if v != NotImplemented {
			return bool(v.Truth()), nil
		}
	} else if op == syntax.NEQ && o.Dunder("__eq__") != nil {
		eq, err := o.CompareSameType(syntax.EQL, y, depth)
		return !eq, err
	}
	if other != nil && op != syntax.EQL && op != syntax.NEQ {
		if v, ok, err := other.CallDunder(nil, names[1], o); ok {
			if err != nil {
				return false, err
			}
			if v != NotImplemented {
				return bool(v.Truth()), nil
			}
		}
	}
	if other != nil && other.class == o.class {
		if r, ok, err := dataclassCompare(o, other, op, depth); ok {
			return r, err
		}
	}
	switch op {
	case syntax.EQL:
		return o == other, nil
	case syntax.NEQ:
		return o != other, nil
	}
	return false, Errorf(pyexc.TypeError, "'%s' not supported between instances of '%s' and '%s'", op, o.class.PyName, TypeName(y))
}

var binaryDunders = map[syntax.Token]string{
	syntax.PLUS: "add", syntax.MINUS: "sub", syntax.STAR: "mul", syntax.SLASH: "truediv",
	syntax.SLASHSLASH: "floordiv", syntax.PERCENT: "mod", syntax.AMP: "and",
	syntax.PIPE: "or", syntax.CIRCUMFLEX: "xor", syntax.LTLT: "lshift", syntax.GTGT: "rshift",
}

// Binary runs __add__, __radd__, ... for the operators go.starlark.net
// dispatches to values.
func (o *Instance) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	name, ok := binaryDunders[op]
	if !ok {
		return nil, nil
	}
	if side == starlark.Left {
		name = "__" + name + "__"
	} else {
		name = "__r" + name + "__"
	}
	v, ok, err := o.CallDunder(nil, name, y)
	if !ok && o.class.enum {
		if r, ok, err := o.enumBinary(op, y, side); ok {
			return r, err
		}
	}
	if !ok || v == NotImplemented {
		return nil, nil // go.starlark.net reports the unsupported operands
	}
	return v, err
}

// Get implements o[k] and "k in o" through __getitem__ / __contains__.
func (o *Instance) Get(k starlark.Value) (starlark.Value, bool, error) {
	v, ok, err := o.CallDunder(nil, "__getitem__", k)
	if !ok {
		return nil, false, Errorf(pyexc.TypeError, "'%s' object is not subscriptable", o.class.PyName)
	}
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// Has implements "x in o".
func (o *Instance) Has(x starlark.Value) (bool, error) {
	if v, ok, err := o.CallDunder(nil, "__contains__", x); ok {
		if err != nil {
			return false, err
		}
		return bool(v.Truth()), nil
	}
	if o.class.enum {
		if r, ok, err := o.enumHas(x); ok {
			return r, err
		}
	}
	return false, Errorf(pyexc.TypeError, "argument of type '%s' is not iterable", o.class.PyName)
}

// SetKey implements o[k] = v through __setitem__.
func (o *Instance) SetKey(k, v starlark.Value) error {
	_, ok, err := o.CallDunder(nil, "__setitem__", k, v)
	if !ok {
		return Errorf(pyexc.TypeError, "'%s' object does not support item assignment", o.class.PyName)
	}
	return err
}

// PyLen is len(o): __len__, which must return a non-negative int. It is
// not go.starlark.net's Len, which builtins use to size buffers before
// iterating and which cannot fail.
func (o *Instance) PyLen(th *starlark.Thread) (int, error) {
	v, ok, err := o.CallDunder(th, "__len__")
	if !ok && o.class.enum {
		if members, ok := o.enumBits(); ok {
			return len(members), nil
		}
	}
	if !ok {
		return 0, Errorf(pyexc.TypeError, "object of type '%s' has no len()", o.class.PyName)
	}
	if err != nil {
		return 0, err
	}
	n, isInt := v.(starlark.Int)
	if !isInt {
		return 0, Errorf(pyexc.TypeError, "'%s' object cannot be interpreted as an integer", TypeName(v))
	}
	i, ok := n.Int64()
	if !ok || i > 1<<62 {
		return 0, Errorf(pyexc.OverflowError, "cannot fit 'int' into an index-sized integer")
	}
	if i < 0 {
		return 0, Errorf(pyexc.ValueError, "__len__() should return >= 0")
	}
	return int(i), nil
}

// Iterate runs __iter__ and returns an iterator over what it gives: a
// value go.starlark.net can iterate, or an object with __next__.
func (o *Instance) Iterate() starlark.Iterator {
	v, ok, err := o.CallDunder(nil, "__iter__")
	if !ok && o.class.enum {
		if members, ok := o.enumBits(); ok {
			return starlark.NewList(members).Iterate()
		}
	}
	if !ok {
		if o.Dunder("__getitem__") != nil {
			return &indexIterator{obj: o}
		}
		return &errIterator{err: Errorf(pyexc.TypeError, "'%s' object is not iterable", o.class.PyName)}
	}
	if err != nil {
		return &errIterator{err: err}
	}
	if inst, ok := v.(*Instance); ok {
		// An instance is an iterator only with __next__: one without it
		// (often the object itself) would be asked for __iter__ again,
		// without end.
		if inst.Dunder("__next__") != nil {
			return &nextIterator{obj: inst}
		}
		return &errIterator{err: Errorf(pyexc.TypeError, "iter() returned non-iterator of type '%s'", inst.class.PyName)}
	}
	if it, ok := v.(starlark.Iterable); ok {
		return it.Iterate()
	}
	return &errIterator{err: Errorf(pyexc.TypeError, "iter() returned non-iterator of type '%s'", TypeName(v))}
}

// PyNext lets next() drive an object with __next__.
func (o *Instance) PyNext(th *starlark.Thread) (starlark.Value, bool, error) {
	v, ok, err := o.CallDunder(th, "__next__")
	if !ok {
		return nil, false, Errorf(pyexc.TypeError, "'%s' object is not an iterator", o.class.PyName)
	}
	if err != nil {
		if isStopIteration(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return v, true, nil
}

// Name and CallInternal make instances with __call__ callable.
func (o *Instance) Name() string { return o.class.PyName }
func (o *Instance) CallInternal(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m := o.Dunder("__call__")
	if m == nil {
		return nil, Errorf(pyexc.TypeError, "'%s' object is not callable", o.class.PyName)
	}
	return starlark.Call(th, bind(m, o), args, kwargs)
}

// PyCopy implements copy.copy and copy.deepcopy.
func (o *Instance) PyCopy(th *starlark.Thread, deep bool, memo map[starlark.Value]starlark.Value) (starlark.Value, error) {
	if c, ok := memo[o]; ok {
		return c, nil
	}
	c := &Instance{class: o.class, attrs: make(map[string]starlark.Value, len(o.attrs)), order: append([]string(nil), o.order...), args: o.args, frozen: o.frozen}
	memo[o] = c
	for k, v := range o.attrs {
		if deep {
			var err error
			if v, err = CopyValue(th, v, true, memo, 1); err != nil {
				return nil, err
			}
		}
		c.attrs[k] = v
	}
	return c, nil
}

type errIterator struct{ err error }

func (it *errIterator) Next(*starlark.Value) bool { return false }
func (it *errIterator) Done()                     {}
func (it *errIterator) Err() error                { return it.err }

// nextIterator drives __next__ until StopIteration.
type nextIterator struct {
	obj *Instance
	err error
}

func (it *nextIterator) Next(p *starlark.Value) bool {
	v, ok, err := it.obj.PyNext(it.obj.class.thread())
	if err != nil {
		it.err = err
		return false
	}
	if ok {
		*p = v
	}
	return ok
}
func (it *nextIterator) Done()      {}
func (it *nextIterator) Err() error { return it.err }

// indexIterator is the old sequence protocol: __getitem__(0), (1), ...
// until IndexError.
type indexIterator struct {
	obj *Instance
	i   int
	err error
}

func (it *indexIterator) Next(p *starlark.Value) bool {
	v, _, err := it.obj.CallDunder(nil, "__getitem__", starlark.MakeInt(it.i))
	if err != nil {
		if t, _ := Classify(err); t != pyexc.IndexError.Name() {
			it.err = err
		}
		return false
	}
	it.i++
	*p = v
	return true
}
func (it *indexIterator) Done()      {}
func (it *indexIterator) Err() error { return it.err }

// BoundMethod is a function bound to its receiver (obj.method).
type BoundMethod struct {
	fn   starlark.Callable
	self starlark.Value
}

var _ starlark.Callable = (*BoundMethod)(nil)

func (m *BoundMethod) Name() string { return m.fn.Name() }
func (m *BoundMethod) String() string {
	return "<bound method " + TypeName(m.self) + "." + m.fn.Name() + ">"
}
func (m *BoundMethod) Type() string         { return "method" }
func (m *BoundMethod) Freeze()              {}
func (m *BoundMethod) Truth() starlark.Bool { return true }
func (m *BoundMethod) Hash() (uint32, error) {
	h, err := m.fn.Hash()
	return h ^ uint32(UintptrOf(m.self)), err
}

// CompareSameType: two bound methods are equal when they bind the same
// function to the same object (Python's "is"), as in CPython, where
// obj.f == obj.f although each access makes a new bound method.
func (m *BoundMethod) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	o := y.(*BoundMethod)
	eq := SameObject(m.fn, o.fn) && Identical(m.self, o.self)
	switch op {
	case syntax.EQL:
		return eq, nil
	case syntax.NEQ:
		return !eq, nil
	}
	return false, Errorf(pyexc.TypeError, "'%s' not supported between instances of 'method' and 'method'", op)
}

func (m *BoundMethod) CallInternal(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	all := make(starlark.Tuple, 0, len(args)+1)
	all = append(append(all, m.self), args...)
	return starlark.Call(th, m.fn, all, kwargs)
}

// property, staticMethod and classMethod are what the decorators of the
// same names return.
type property struct {
	get, set starlark.Value
}

func (p *property) String() string        { return "<property object>" }
func (p *property) Type() string          { return "property" }
func (p *property) Freeze()               {}
func (p *property) Truth() starlark.Bool  { return true }
func (p *property) Hash() (uint32, error) { return uint32(UintptrOf(p)), nil }

// Attr gives @x.setter.
func (p *property) Attr(name string) (starlark.Value, error) {
	if name != "setter" {
		return nil, Errorf(pyexc.AttributeError, "'property' object has no attribute '%s'", name)
	}
	return starlark.NewBuiltin("setter", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var fn starlark.Value
		if err := starlark.UnpackPositionalArgs("setter", args, kwargs, 1, &fn); err != nil {
			return nil, err
		}
		return &property{get: p.get, set: fn}, nil
	}), nil
}
func (p *property) AttrNames() []string { return []string{"setter"} }

type staticMethod struct{ fn starlark.Value }

func (s *staticMethod) String() string        { return "<staticmethod object>" }
func (s *staticMethod) Type() string          { return "staticmethod" }
func (s *staticMethod) Freeze()               {}
func (s *staticMethod) Truth() starlark.Bool  { return true }
func (s *staticMethod) Hash() (uint32, error) { return uint32(UintptrOf(s)), nil }

type classMethod struct{ fn starlark.Callable }

func (c *classMethod) String() string        { return "<classmethod object>" }
func (c *classMethod) Type() string          { return "classmethod" }
func (c *classMethod) Freeze()               {}
func (c *classMethod) Truth() starlark.Bool  { return true }
func (c *classMethod) Hash() (uint32, error) { return uint32(UintptrOf(c)), nil }

// superProxy is what super() returns: attribute lookup starting after
// class in the receiver's class chain.
type superProxy struct {
	class *Class
	self  starlark.Value
}

func (s *superProxy) String() string        { return "<super: <class '" + s.class.PyName + "'>>" }
func (s *superProxy) Type() string          { return "super" }
func (s *superProxy) Freeze()               {}
func (s *superProxy) Truth() starlark.Bool  { return true }
func (s *superProxy) Hash() (uint32, error) { return uint32(UintptrOf(s)), nil }
func (s *superProxy) AttrNames() []string   { return nil }
func (s *superProxy) Attr(name string) (starlark.Value, error) {
	if s.class.Base == nil {
		if name == "__init__" {
			// object.__init__ accepts no arguments and does nothing.
			return starlark.NewBuiltin("__init__", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				if len(args)+len(kwargs) > 0 {
					return nil, Errorf(pyexc.TypeError, "object.__init__() takes exactly one argument (the instance to initialize)")
				}
				return starlark.None, nil
			}), nil
		}
		return nil, Errorf(pyexc.AttributeError, "'super' object has no attribute '%s'", name)
	}
	v, _ := s.class.Base.lookup(name)
	if v == nil {
		return nil, Errorf(pyexc.AttributeError, "'super' object has no attribute '%s'", name)
	}
	if p, ok := v.(*property); ok {
		th := s.class.thread()
		if th == nil {
			return nil, Errorf(pyexc.RuntimeError, "property %s cannot run outside an execution", name)
		}
		return starlark.Call(th, p.get, starlark.Tuple{s.self}, nil)
	}
	return bind(v, s.self), nil
}

// NotImplemented is the NotImplemented singleton.
var NotImplemented = &Singleton{Name: "NotImplemented"}

type Singleton struct{ Name string }

func (s *Singleton) String() string        { return s.Name }
func (s *Singleton) Type() string          { return s.Name + "Type" }
func (s *Singleton) Freeze()               {}
func (s *Singleton) Truth() starlark.Bool  { return true }
func (s *Singleton) Hash() (uint32, error) { return starlark.String(s.Name).Hash() }

var unaryDunders = map[syntax.Token]string{syntax.MINUS: "__neg__", syntax.PLUS: "__pos__", syntax.TILDE: "__invert__"}

// Unary runs __neg__, __pos__ and __invert__.
func (o *Instance) Unary(op syntax.Token) (starlark.Value, error) {
	name, ok := unaryDunders[op]
	if !ok {
		return nil, nil
	}
	v, ok, err := o.CallDunder(nil, name)
	if !ok && o.class.enum {
		if r, ok, err := o.enumUnary(op); ok {
			return r, err
		}
	}
	if !ok {
		return nil, nil // go.starlark.net reports the bad operand
	}
	return v, err
}

// specialAttr reads the attributes getAttr gives every value that has
// them: __name__ of functions, methods, classes and modules, and
// __cause__ of exceptions. ok is false for other names and values.
func specialAttr(x starlark.Value, name string) (starlark.Value, bool) {
	switch name {
	case "__doc__", "__module__", "__class__", "__wrapped__":
		return describingAttr(x, name)
	case "__name__":
		switch x := x.(type) {
		case *Wrapped:
			return starlark.String(x.name), true
		case *starlark.Function:
			return starlark.String(funcName(x.Name())), true
		case *starlark.Builtin:
			return starlark.String(x.Name()), true
		case *BoundMethod:
			return starlark.String(x.Name()), true
		case *Class:
			return starlark.String(x.PyName), true
		case *Type:
			// A module's type is named with its module
			// (collections.OrderedDict); __name__ is the last part.
			return starlark.String(x.PyName[strings.LastIndexByte(x.PyName, '.')+1:]), true
		case *PyModule:
			return starlark.String(x.ModName), true
		}
	case "__cause__":
		if inst, ok := x.(*Instance); ok && inst.class.Exc {
			if inst.cause == nil {
				return starlark.None, true
			}
			return inst.cause, true
		}
	}
	return nil, false
}

// SizeOf lets the engine's memory walk see class attributes (a class
// attribute can be a cache that grows without bound).
func (c *Class) SizeOf(visit func(starlark.Value)) int64 {
	if c.shared() {
		return 0 // owned by the runtime, not by the execution
	}
	for _, v := range c.Dict {
		visit(v)
	}
	if c.Base != nil {
		visit(c.Base)
	}
	return objectBytes + int64(len(c.Dict))*dictEntryBytes
}

// SizeOf lets the engine's memory walk see the receiver.
func (m *BoundMethod) SizeOf(visit func(starlark.Value)) int64 {
	visit(m.self)
	visit(m.fn)
	return 32
}
