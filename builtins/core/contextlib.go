package core

// The context managers of the contextlib module: contextmanager (a
// generator function made a context manager), suppress and nullcontext.
// They are ContextManager values (datamodel.go) the with statement takes;
// their generators and exception checks run on the execution's thread.

import (
	"errors"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// ContextlibModule returns the members of the contextlib module.
func ContextlibModule() starlark.StringDict {
	return starlark.StringDict{
		"contextmanager": starlark.NewBuiltin("contextmanager", contextmanagerFn),
		"suppress":       starlark.NewBuiltin("suppress", suppressFn),
		"nullcontext":    starlark.NewBuiltin("nullcontext", nullcontextFn),
	}
}

// contextmanagerFn is @contextmanager: a function whose calls return a
// generatorCM around the generator the decorated function returns.
func contextmanagerFn(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn starlark.Callable
	if err := starlark.UnpackPositionalArgs("contextmanager", args, kwargs, 1, &fn); err != nil {
		return nil, err
	}
	return starlark.NewBuiltin(fn.Name(), func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		g, err := starlark.Call(th, fn, args, kwargs)
		if err != nil {
			return nil, err
		}
		it, ok := g.(*Iterator)
		if !ok || it.gen == nil {
			return nil, Errorf(pyexc.TypeError, "@contextmanager: %s() did not return a generator (it returned '%s')", fn.Name(), TypeName(g))
		}
		return &generatorCM{gen: it}, nil
	}), nil
}

// generatorCM runs a generator as a context manager: up to its yield on
// entry, the rest on exit (with the body's exception raised at the yield).
type generatorCM struct {
	gen     *Iterator
	entered bool
}

var _ ContextManager = (*generatorCM)(nil)

func (g *generatorCM) String() string        { return "<contextlib._GeneratorContextManager object>" }
func (g *generatorCM) Type() string          { return "_GeneratorContextManager" }
func (g *generatorCM) Freeze()               {}
func (g *generatorCM) Truth() starlark.Bool  { return true }
func (g *generatorCM) Hash() (uint32, error) { return uint32(UintptrOf(g)), nil }

// SizeOf lets the engine's memory walk see the generator.
func (g *generatorCM) SizeOf(visit func(starlark.Value)) int64 {
	visit(g.gen)
	return 32
}

// method calls the generator's method name (send or throw).
func (g *generatorCM) method(th *starlark.Thread, name string, arg starlark.Value) (starlark.Value, error) {
	m, err := g.gen.Attr(name)
	if err != nil {
		return nil, err
	}
	return starlark.Call(th, m, starlark.Tuple{arg}, nil)
}

// Enter runs the generator to its first yield.
func (g *generatorCM) Enter(th *starlark.Thread) (starlark.Value, error) {
	if g.entered {
		return nil, Errorf(pyexc.RuntimeError, "generator didn't yield")
	}
	g.entered = true
	v, err := g.method(th, "send", starlark.None)
	if err != nil {
		if isStopIteration(err) {
			return nil, Errorf(pyexc.RuntimeError, "generator didn't yield")
		}
		return nil, err
	}
	return v, nil
}

// Exit resumes the generator: normally, or raising exc at its yield.
func (g *generatorCM) Exit(th *starlark.Thread, exc *Instance) (bool, error) {
	if exc == nil {
		_, err := g.method(th, "send", starlark.None)
		if err == nil {
			return false, Errorf(pyexc.RuntimeError, "generator didn't stop")
		}
		if isStopIteration(err) {
			return false, nil
		}
		return false, err
	}
	_, err := g.method(th, "throw", exc)
	if err == nil {
		return false, Errorf(pyexc.RuntimeError, "generator didn't stop after throw()")
	}
	var raised *Exception
	if errors.As(err, &raised) && raised.Value == exc {
		return false, nil // not caught: the with statement re-raises it
	}
	if isStopIteration(err) {
		return true, nil // the generator caught it and finished
	}
	return false, err
}

// suppressCM is contextlib.suppress(*exceptions).
type suppressCM struct{ types starlark.Tuple }

var _ ContextManager = (*suppressCM)(nil)

func suppressFn(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf(pyexc.TypeError, "suppress() takes no keyword arguments")
	}
	return &suppressCM{types: append(starlark.Tuple(nil), args...)}, nil
}

func (s *suppressCM) String() string        { return "<contextlib.suppress object>" }
func (s *suppressCM) Type() string          { return "suppress" }
func (s *suppressCM) Freeze()               {}
func (s *suppressCM) Truth() starlark.Bool  { return true }
func (s *suppressCM) Hash() (uint32, error) { return uint32(UintptrOf(s)), nil }

// SizeOf lets the engine's memory walk see the exception types.
func (s *suppressCM) SizeOf(visit func(starlark.Value)) int64 {
	visit(s.types)
	return 32
}

// Enter gives None.
func (s *suppressCM) Enter(*starlark.Thread) (starlark.Value, error) { return starlark.None, nil }

// Exit swallows an exception of one of the types.
func (s *suppressCM) Exit(_ *starlark.Thread, exc *Instance) (bool, error) {
	if exc == nil || len(s.types) == 0 {
		return false, nil
	}
	return excMatches(exc, s.types)
}

// nullCM is contextlib.nullcontext(enter_result=None).
type nullCM struct{ result starlark.Value }

var _ ContextManager = (*nullCM)(nil)

func nullcontextFn(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value = starlark.None
	if err := starlark.UnpackArgs("nullcontext", args, kwargs, "enter_result?", &v); err != nil {
		return nil, err
	}
	return &nullCM{result: v}, nil
}

func (n *nullCM) String() string        { return "<contextlib.nullcontext object>" }
func (n *nullCM) Type() string          { return "nullcontext" }
func (n *nullCM) Freeze()               {}
func (n *nullCM) Truth() starlark.Bool  { return true }
func (n *nullCM) Hash() (uint32, error) { return uint32(UintptrOf(n)), nil }

// SizeOf lets the engine's memory walk see the enter result.
func (n *nullCM) SizeOf(visit func(starlark.Value)) int64 {
	visit(n.result)
	return 16
}

// Enter gives the enter result.
func (n *nullCM) Enter(*starlark.Thread) (starlark.Value, error) { return n.result, nil }

// Exit suppresses nothing.
func (n *nullCM) Exit(*starlark.Thread, *Instance) (bool, error) { return false, nil }
