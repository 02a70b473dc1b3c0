package operator

import (
	"strings"

	"github.com/star-agent/star-agent/builtins/core"
	pycollections "github.com/star-agent/star-agent/builtins/lib/collections"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// operator: the operators as functions, computed by the same code as
// the operators themselves (the budgeted +, *, % and ** of runtime.go
// and add.go), with Python's bool-is-an-int rule applied to arithmetic;
// and itemgetter, attrgetter and methodcaller, whose attribute lookups
// refuse dunder names as getattr does.

var (
	typeItemgetter   = &core.Type{PyName: "operator.itemgetter", Base: core.TypeObject}
	typeAttrgetter   = &core.Type{PyName: "operator.attrgetter", Base: core.TypeObject}
	typeMethodcaller = &core.Type{PyName: "operator.methodcaller", Base: core.TypeObject}
)

func init() {
	typeItemgetter.New = newItemgetter
	typeAttrgetter.New = newAttrgetter
	typeMethodcaller.New = newMethodcaller
}

// opArgs checks the positional-only arguments of an _operator function.
func opArgs(name string, args starlark.Tuple, kwargs []starlark.Tuple, n int) error {
	if len(kwargs) > 0 {
		return core.Errorf(pyexc.TypeError, "_operator.%s() takes no keyword arguments", name)
	}
	if len(args) != n {
		if n == 1 {
			return core.Errorf(pyexc.TypeError, "_operator.%s() takes exactly one argument (%d given)", name, len(args))
		}
		return core.Errorf(pyexc.TypeError, "%s expected %d arguments, got %d", name, n, len(args))
	}
	return nil
}

func op1(name string, f func(th *starlark.Thread, x starlark.Value) (starlark.Value, error)) *starlark.Builtin {
	return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := opArgs(name, args, kwargs, 1); err != nil {
			return nil, err
		}
		return f(th, args[0])
	})
}

func op2(name string, f func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error)) *starlark.Builtin {
	return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := opArgs(name, args, kwargs, 2); err != nil {
			return nil, err
		}
		return f(th, args[0], args[1])
	})
}

func unaryOp(op syntax.Token) func(th *starlark.Thread, x starlark.Value) (starlark.Value, error) {
	return func(th *starlark.Thread, x starlark.Value) (starlark.Value, error) {
		return starlark.Unary(op, core.Numeric(x))
	}
}

func members() starlark.StringDict {
	m := starlark.StringDict{
		"itemgetter":   typeItemgetter,
		"attrgetter":   typeAttrgetter,
		"methodcaller": typeMethodcaller,
	}
	def := func(b *starlark.Builtin, aliases ...string) {
		m[b.Name()] = b
		for _, a := range aliases {
			m[a] = b
		}
	}
	def(op2("add", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		x, y = core.Arith(x, y)
		return core.Add(th, x, y)
	}))
	def(op2("iadd", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		x, y = core.Arith(x, y)
		return core.Iadd(th, x, y)
	}))
	def(op2("concat", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		switch x.(type) {
		case starlark.String, starlark.Bytes, *starlark.List, starlark.Tuple, *pycollections.Deque:
		default:
			return nil, core.Errorf(pyexc.TypeError, "'%s' object can't be concatenated", core.TypeName(x))
		}
		return core.Add(th, x, y)
	}))
	def(op2("sub", core.BinaryOp(syntax.MINUS)))
	def(op2("mul", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		return core.Mul(th, x, y)
	}))
	def(op2("truediv", core.BinaryOp(syntax.SLASH)))
	def(op2("floordiv", core.BinaryOp(syntax.SLASHSLASH)))
	def(op2("mod", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		return core.SaMod(th, nil, starlark.Tuple{x, y}, nil)
	}))
	def(op2("pow", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		return core.Pow(th, x, y)
	}))
	def(op2("and_", core.BinaryOp(syntax.AMP)))
	def(op2("or_", core.BinaryOp(syntax.PIPE)))
	def(op2("xor", core.BinaryOp(syntax.CIRCUMFLEX)))
	def(op2("lshift", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		x, y = core.Arith(x, y)
		if n, ok := y.(starlark.Int); ok && n.Sign() > 0 {
			if bits, ok := n.Int64(); !ok || bits > core.MaxIntBits {
				return nil, core.Errorf(pyexc.MemoryError, "integer result too large (the limit is %d bits)", core.MaxIntBits)
			}
		}
		return starlark.Binary(syntax.LTLT, x, y)
	}))
	def(op2("rshift", core.BinaryOp(syntax.GTGT)))
	def(op1("neg", unaryOp(syntax.MINUS)))
	def(op1("pos", unaryOp(syntax.PLUS)))
	def(op1("invert", unaryOp(syntax.TILDE)), "inv")
	def(op1("abs", func(th *starlark.Thread, x starlark.Value) (starlark.Value, error) {
		return core.PyAbs(th, nil, starlark.Tuple{x}, nil)
	}))
	def(op1("not_", func(th *starlark.Thread, x starlark.Value) (starlark.Value, error) {
		t, err := core.Truth(th, x)
		return starlark.Bool(!t), err
	}))
	def(op1("truth", func(th *starlark.Thread, x starlark.Value) (starlark.Value, error) {
		t, err := core.Truth(th, x)
		return starlark.Bool(t), err
	}))
	def(op1("index", func(th *starlark.Thread, x starlark.Value) (starlark.Value, error) {
		n, err := core.Index(x)
		if err != nil {
			return nil, err
		}
		return n, nil
	}))
	def(op2("is_", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		return starlark.Bool(core.Identical(x, y)), nil
	}))
	def(op2("is_not", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		return starlark.Bool(!core.Identical(x, y)), nil
	}))
	def(op2("eq", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		eq, err := core.Equal(x, y)
		return starlark.Bool(eq), err
	}))
	def(op2("ne", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		x, y = core.Unbool(x, y)
		ne, err := starlark.Compare(syntax.NEQ, x, y)
		return starlark.Bool(ne), err
	}))
	for _, c := range []struct {
		name string
		op   syntax.Token
	}{{"lt", syntax.LT}, {"le", syntax.LE}, {"gt", syntax.GT}, {"ge", syntax.GE}} {
		op := c.op
		def(op2(c.name, func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
			r, err := core.PyCompare(op, x, y)
			return starlark.Bool(r), err
		}))
	}
	def(op2("contains", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		r, err := contains(th, x, y)
		return starlark.Bool(r), err
	}))
	def(op2("getitem", core.GetItem))
	def(op2("countOf", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		n := 0
		err := forEachItem(th, x, func(i int, v starlark.Value) (bool, error) {
			eq := core.Identical(v, y)
			if !eq {
				var err error
				if eq, err = core.Equal(v, y); err != nil {
					return false, err
				}
			}
			if eq {
				n++
			}
			return true, nil
		})
		return starlark.MakeInt(n), err
	}))
	def(op2("indexOf", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		found := -1
		err := forEachItem(th, x, func(i int, v starlark.Value) (bool, error) {
			eq := core.Identical(v, y)
			if !eq {
				var err error
				if eq, err = core.Equal(v, y); err != nil {
					return false, err
				}
			}
			if eq {
				found = i
				return false, nil
			}
			return true, nil
		})
		if err != nil {
			return nil, err
		}
		if found < 0 {
			return nil, core.Errorf(pyexc.ValueError, "sequence.index(x): x not in sequence")
		}
		return starlark.MakeInt(found), nil
	}))
	return m
}

// forEachItem iterates x for countOf and indexOf; f returns false to
// stop.
func forEachItem(th *starlark.Thread, x starlark.Value, f func(i int, v starlark.Value) (bool, error)) error {
	if _, ok := x.(starlark.String); !ok {
		if _, ok := x.(starlark.Iterable); !ok {
			return core.Errorf(pyexc.TypeError, "argument of type '%s' is not iterable", core.TypeName(x))
		}
	}
	i := 0
	err := core.ForEach(th, x, func(v starlark.Value) error {
		more, err := f(i, v)
		i++
		if err == nil && !more {
			return core.ErrStop
		}
		return err
	})
	if err == core.ErrStop {
		err = nil
	}
	return err
}

// contains is "y in x".
func contains(th *starlark.Thread, x, y starlark.Value) (bool, error) {
	switch v := x.(type) {
	case *starlark.List, starlark.Tuple, *pycollections.Deque, *core.Iterator:
		found := false
		err := forEachItem(th, v, func(_ int, e starlark.Value) (bool, error) {
			eq := core.Identical(e, y)
			if !eq {
				var err error
				if eq, err = core.Equal(e, y); err != nil {
					return false, err
				}
			}
			found = eq
			return !eq, nil
		})
		return found, err
	case *core.Instance:
		return v.Has(y)
	}
	r, err := starlark.Binary(syntax.IN, y, x)
	if err != nil {
		if strings.Contains(err.Error(), "unknown binary op") {
			return false, core.Errorf(pyexc.TypeError, "argument of type '%s' is not iterable", core.TypeName(x))
		}
		return false, err
	}
	return bool(r.Truth()), nil
}

// itemgetter is operator.itemgetter(*items).
type itemgetter struct{ items starlark.Tuple }

// attrgetter is operator.attrgetter(*names); each name is split at dots.
type attrgetter struct {
	names []string
	paths [][]string
}

// methodcaller is operator.methodcaller(name, *args, **kwargs).
type methodcaller struct {
	name   string
	args   starlark.Tuple
	kwargs []starlark.Tuple
}

var (
	_ starlark.Callable = (*itemgetter)(nil)
	_ starlark.Callable = (*attrgetter)(nil)
	_ starlark.Callable = (*methodcaller)(nil)
	_ core.Representer  = (*itemgetter)(nil)
	_ core.Typed        = (*itemgetter)(nil)
)

func newItemgetter(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, core.Errorf(pyexc.TypeError, "itemgetter() takes no keyword arguments")
	}
	if len(args) == 0 {
		return nil, core.Errorf(pyexc.TypeError, "itemgetter expected 1 argument, got 0")
	}
	return &itemgetter{items: append(starlark.Tuple(nil), args...)}, nil
}

func newAttrgetter(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, core.Errorf(pyexc.TypeError, "attrgetter() takes no keyword arguments")
	}
	if len(args) == 0 {
		return nil, core.Errorf(pyexc.TypeError, "attrgetter expected 1 argument, got 0")
	}
	g := &attrgetter{}
	for _, a := range args {
		s, ok := a.(starlark.String)
		if !ok {
			return nil, core.Errorf(pyexc.TypeError, "attribute name must be a string")
		}
		g.names = append(g.names, string(s))
		g.paths = append(g.paths, strings.Split(string(s), "."))
	}
	return g, nil
}

func newMethodcaller(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 0 {
		return nil, core.Errorf(pyexc.TypeError, "methodcaller needs at least one argument, the method name")
	}
	name, ok := args[0].(starlark.String)
	if !ok {
		return nil, core.Errorf(pyexc.TypeError, "method name must be a string")
	}
	return &methodcaller{name: string(name), args: append(starlark.Tuple(nil), args[1:]...), kwargs: append([]starlark.Tuple(nil), kwargs...)}, nil
}

func (g *itemgetter) Name() string           { return "itemgetter" }
func (g *itemgetter) Type() string           { return "operator.itemgetter" }
func (g *itemgetter) PyType() starlark.Value { return typeItemgetter }
func (g *itemgetter) Freeze()                { g.items.Freeze() }
func (g *itemgetter) Truth() starlark.Bool   { return true }
func (g *itemgetter) Hash() (uint32, error)  { return uint32(core.UintptrOf(g)), nil }
func (g *itemgetter) String() string         { return core.Repr(g) }

func (g *itemgetter) PyRepr(th *starlark.Thread) (string, error) {
	parts := make([]string, len(g.items))
	for i, it := range g.items {
		s, err := core.ReprValue(th, it)
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	return "operator.itemgetter(" + strings.Join(parts, ", ") + ")", nil
}
func (g *itemgetter) PyStr(th *starlark.Thread) (string, error) { return g.PyRepr(th) }

func (g *itemgetter) CallInternal(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, core.Errorf(pyexc.TypeError, "itemgetter() takes no keyword arguments")
	}
	if len(args) != 1 {
		return nil, core.Errorf(pyexc.TypeError, "itemgetter expected 1 argument, got %d", len(args))
	}
	if len(g.items) == 1 {
		return core.GetItem(th, args[0], g.items[0])
	}
	out := make(starlark.Tuple, len(g.items))
	for i, k := range g.items {
		v, err := core.GetItem(th, args[0], k)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (g *attrgetter) Name() string           { return "attrgetter" }
func (g *attrgetter) Type() string           { return "operator.attrgetter" }
func (g *attrgetter) PyType() starlark.Value { return typeAttrgetter }
func (g *attrgetter) Freeze()                {}
func (g *attrgetter) Truth() starlark.Bool   { return true }
func (g *attrgetter) Hash() (uint32, error)  { return uint32(core.UintptrOf(g)), nil }
func (g *attrgetter) String() string         { s, _ := g.PyRepr(nil); return s }

func (g *attrgetter) PyRepr(*starlark.Thread) (string, error) {
	parts := make([]string, len(g.names))
	for i, n := range g.names {
		parts[i] = core.QuoteString(n)
	}
	return "operator.attrgetter(" + strings.Join(parts, ", ") + ")", nil
}
func (g *attrgetter) PyStr(th *starlark.Thread) (string, error) { return g.PyRepr(th) }

func (g *attrgetter) CallInternal(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, core.Errorf(pyexc.TypeError, "attrgetter() takes no keyword arguments")
	}
	if len(args) != 1 {
		return nil, core.Errorf(pyexc.TypeError, "attrgetter expected 1 argument, got %d", len(args))
	}
	get := func(path []string) (starlark.Value, error) {
		v := args[0]
		for _, name := range path {
			var err error
			// Dunder names are refused as getattr refuses them: no
			// reflection through attrgetter.
			if v, err = core.SafeGetAttr(th, v, name); err != nil {
				return nil, err
			}
		}
		return v, nil
	}
	if len(g.paths) == 1 {
		return get(g.paths[0])
	}
	out := make(starlark.Tuple, len(g.paths))
	for i, p := range g.paths {
		v, err := get(p)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (c *methodcaller) Name() string           { return "methodcaller" }
func (c *methodcaller) Type() string           { return "operator.methodcaller" }
func (c *methodcaller) PyType() starlark.Value { return typeMethodcaller }
func (c *methodcaller) Freeze()                {}
func (c *methodcaller) Truth() starlark.Bool   { return true }
func (c *methodcaller) Hash() (uint32, error)  { return uint32(core.UintptrOf(c)), nil }
func (c *methodcaller) String() string         { return core.Repr(c) }

func (c *methodcaller) PyRepr(th *starlark.Thread) (string, error) {
	parts := []string{core.QuoteString(c.name)}
	for _, a := range c.args {
		s, err := core.ReprValue(th, a)
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	for _, kv := range c.kwargs {
		s, err := core.ReprValue(th, kv[1])
		if err != nil {
			return "", err
		}
		parts = append(parts, string(kv[0].(starlark.String))+"="+s)
	}
	return "operator.methodcaller(" + strings.Join(parts, ", ") + ")", nil
}
func (c *methodcaller) PyStr(th *starlark.Thread) (string, error) { return c.PyRepr(th) }

func (c *methodcaller) CallInternal(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, core.Errorf(pyexc.TypeError, "methodcaller() takes no keyword arguments")
	}
	if len(args) != 1 {
		return nil, core.Errorf(pyexc.TypeError, "methodcaller expected 1 argument, got %d", len(args))
	}
	m, err := core.SafeGetAttr(th, args[0], c.name)
	if err != nil {
		return nil, err
	}
	return starlark.Call(th, m, c.args, c.kwargs)
}

// Module returns a new operator module.
func Module() *core.PyModule { return core.NewModule("operator", members()) }
