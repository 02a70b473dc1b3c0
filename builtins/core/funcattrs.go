package core

import (
	"strings"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// The attributes that describe a function, a class or any value, which
// code reads in decorators, docstring-driven tools and logging: __doc__,
// __module__, __class__ and __wrapped__. They reach nothing: a docstring,
// a module's name, type(x), the function a wrapper wraps. Attributes that
// exist to reach an interpreter's internals (__globals__, __code__,
// __dict__, __subclasses__, ...) stay refused by the front end.

// describingAttr is specialAttr for those four names.
func describingAttr(x starlark.Value, name string) (starlark.Value, bool) {
	if name == "__class__" {
		return TypeOf(x), true
	}
	switch x := x.(type) {
	case *Wrapped:
		switch name {
		case "__doc__":
			return x.doc, true
		case "__module__":
			return x.module, true
		case "__wrapped__":
			return x.wrapped, true
		}
	case *starlark.Function:
		switch name {
		case "__doc__":
			if d := x.Doc(); d != "" {
				return starlark.String(d), true
			}
			return starlark.None, true
		case "__module__":
			return starlark.String("__main__"), true
		}
	case *BoundMethod:
		if name == "__doc__" || name == "__module__" {
			return describingAttr(x.fn, name)
		}
	case *Class:
		switch name {
		case "__doc__":
			// Not inherited: a class without a docstring has None.
			if d, ok := x.Dict["__doc__"]; ok {
				return d, true
			}
			return starlark.None, true
		case "__module__":
			if x.Module == "" {
				return starlark.String("builtins"), true
			}
			return starlark.String(x.Module), true
		}
	case *Instance:
		if name == "__doc__" || name == "__module__" {
			return describingAttr(x.class, name)
		}
	case *Type:
		if name == "__module__" {
			// collections.OrderedDict is in collections; int in builtins.
			if i := strings.LastIndexByte(x.PyName, '.'); i >= 0 {
				return starlark.String(x.PyName[:i]), true
			}
			return starlark.String("builtins"), true
		}
	}
	return nil, false
}

// Wrapped is what functools.wraps(wrapped)(wrapper) and
// functools.update_wrapper(wrapper, wrapped) return: wrapper, called as
// itself, carrying wrapped's __name__, __doc__ and __module__ and
// wrapped itself as __wrapped__. It binds as a method as wrapper would.
type Wrapped struct {
	fn      starlark.Callable
	wrapped starlark.Value
	name    string
	doc     starlark.Value
	module  starlark.Value
}

var (
	_ starlark.Callable = (*Wrapped)(nil)
	_ Typed             = (*Wrapped)(nil)
)

// Wrap is functools.update_wrapper(wrapper, wrapped).
func Wrap(wrapper, wrapped starlark.Value) (starlark.Value, error) {
	fn, ok := wrapper.(starlark.Callable)
	if !ok {
		return nil, Errorf(pyexc.TypeError, "'%s' object is not callable", TypeName(wrapper))
	}
	w := &Wrapped{fn: fn, wrapped: wrapped, name: fn.Name(), doc: starlark.None, module: starlark.String("__main__")}
	if v, ok := specialAttr(wrapped, "__name__"); ok {
		if s, ok := v.(starlark.String); ok {
			w.name = string(s)
		}
	}
	if v, ok := describingAttr(wrapped, "__doc__"); ok {
		w.doc = v
	}
	if v, ok := describingAttr(wrapped, "__module__"); ok {
		w.module = v
	}
	return w, nil
}

func (w *Wrapped) String() string {
	return "<function " + w.name + " at " + Address(w) + ">"
}
func (w *Wrapped) Type() string           { return "function" }
func (w *Wrapped) PyType() starlark.Value { return TypeOf(w.fn) }
func (w *Wrapped) Freeze()                { w.fn.Freeze() }
func (w *Wrapped) Truth() starlark.Bool   { return true }
func (w *Wrapped) Hash() (uint32, error)  { return uint32(UintptrOf(w)), nil }
func (w *Wrapped) Name() string           { return w.name }

// CallInternal calls the wrapper.
func (w *Wrapped) CallInternal(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return starlark.Call(th, w.fn, args, kwargs)
}
