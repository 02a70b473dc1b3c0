package builtins

import (
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// operator: the operators as functions, computed by the same code as
// the operators themselves (the budgeted +, *, % and ** of runtime.go
// and add.go), with Python's bool-is-an-int rule applied to arithmetic;
// and itemgetter, attrgetter and methodcaller, whose attribute lookups
// refuse dunder names as getattr does.

var (
	typeItemgetter   = &Type{name: "operator.itemgetter", base: typeObject}
	typeAttrgetter   = &Type{name: "operator.attrgetter", base: typeObject}
	typeMethodcaller = &Type{name: "operator.methodcaller", base: typeObject}
)

func init() {
	typeItemgetter.new = newItemgetter
	typeAttrgetter.new = newAttrgetter
	typeMethodcaller.new = newMethodcaller
	register("operator", operatorModule)
}

// opArgs checks the positional-only arguments of an _operator function.
func opArgs(name string, args starlark.Tuple, kwargs []starlark.Tuple, n int) error {
	if len(kwargs) > 0 {
		return Errorf("TypeError", "_operator.%s() takes no keyword arguments", name)
	}
	if len(args) != n {
		if n == 1 {
			return Errorf("TypeError", "_operator.%s() takes exactly one argument (%d given)", name, len(args))
		}
		return Errorf("TypeError", "%s expected %d arguments, got %d", name, n, len(args))
	}
	return nil
}

func op1(name string, f func(th *starlark.Thread, x starlark.Value) (starlark.Value, error)) *starlark.Builtin {
	return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := opArgs(name, args, kwargs, 1); err != nil {
			return nil, err
		}
		return f(th, args[0])
	})
}

func op2(name string, f func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error)) *starlark.Builtin {
	return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := opArgs(name, args, kwargs, 2); err != nil {
			return nil, err
		}
		return f(th, args[0], args[1])
	})
}

// arith turns bools into ints when both operands are numbers, as
// Python's arithmetic does.
func arith(x, y starlark.Value) (starlark.Value, starlark.Value) {
	_, xb := x.(starlark.Bool)
	_, yb := y.(starlark.Bool)
	if xb || yb {
		if (xb || isNumber(x)) && (yb || isNumber(y)) {
			return numArg(x), numArg(y)
		}
	}
	return x, y
}

// binaryOp is x op y through go.starlark.net (which dispatches to the
// operands' Binary methods); its errors are worded by Classify as the
// operator's own are.
func binaryOp(op syntax.Token) func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
	return func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		xb, xok := x.(starlark.Bool)
		yb, yok := y.(starlark.Bool)
		if xok && yok {
			// bool & bool, | and ^ are bools.
			switch op {
			case syntax.AMP:
				return xb && yb, nil
			case syntax.PIPE:
				return xb || yb, nil
			case syntax.CIRCUMFLEX:
				return starlark.Bool(xb != yb), nil
			}
		}
		x, y = arith(x, y)
		return starlark.Binary(op, x, y)
	}
}

func unaryOp(op syntax.Token) func(th *starlark.Thread, x starlark.Value) (starlark.Value, error) {
	return func(th *starlark.Thread, x starlark.Value) (starlark.Value, error) {
		return starlark.Unary(op, numArg(x))
	}
}

func operatorModule() starlark.StringDict {
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
		x, y = arith(x, y)
		return add(th, x, y)
	}))
	def(op2("iadd", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		x, y = arith(x, y)
		return iadd(th, x, y)
	}))
	def(op2("concat", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		switch x.(type) {
		case starlark.String, starlark.Bytes, *starlark.List, starlark.Tuple, *deque:
		default:
			return nil, Errorf("TypeError", "'%s' object can't be concatenated", TypeName(x))
		}
		return add(th, x, y)
	}))
	def(op2("sub", binaryOp(syntax.MINUS)))
	def(op2("mul", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		return mul(th, x, y)
	}))
	def(op2("truediv", binaryOp(syntax.SLASH)))
	def(op2("floordiv", binaryOp(syntax.SLASHSLASH)))
	def(op2("mod", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		return saMod(th, nil, starlark.Tuple{x, y}, nil)
	}))
	def(op2("pow", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		return pow(th, x, y)
	}))
	def(op2("and_", binaryOp(syntax.AMP)))
	def(op2("or_", binaryOp(syntax.PIPE)))
	def(op2("xor", binaryOp(syntax.CIRCUMFLEX)))
	def(op2("lshift", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		x, y = arith(x, y)
		if n, ok := y.(starlark.Int); ok && n.Sign() > 0 {
			if bits, ok := n.Int64(); !ok || bits > maxIntBits {
				return nil, Errorf("MemoryError", "integer result too large (the limit is %d bits)", maxIntBits)
			}
		}
		return starlark.Binary(syntax.LTLT, x, y)
	}))
	def(op2("rshift", binaryOp(syntax.GTGT)))
	def(op1("neg", unaryOp(syntax.MINUS)))
	def(op1("pos", unaryOp(syntax.PLUS)))
	def(op1("invert", unaryOp(syntax.TILDE)), "inv")
	def(op1("abs", func(th *starlark.Thread, x starlark.Value) (starlark.Value, error) {
		return pyAbs(th, nil, starlark.Tuple{x}, nil)
	}))
	def(op1("not_", func(th *starlark.Thread, x starlark.Value) (starlark.Value, error) {
		return !x.Truth(), nil
	}))
	def(op1("truth", func(th *starlark.Thread, x starlark.Value) (starlark.Value, error) {
		return x.Truth(), nil
	}))
	def(op1("index", func(th *starlark.Thread, x starlark.Value) (starlark.Value, error) {
		return indexOf(x)
	}))
	def(op2("is_", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		return starlark.Bool(identical(x, y)), nil
	}))
	def(op2("is_not", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		return starlark.Bool(!identical(x, y)), nil
	}))
	def(op2("eq", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		eq, err := equal(x, y)
		return starlark.Bool(eq), err
	}))
	def(op2("ne", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		x, y = unbool(x, y)
		ne, err := starlark.Compare(syntax.NEQ, x, y)
		return starlark.Bool(ne), err
	}))
	for _, c := range []struct {
		name string
		op   syntax.Token
	}{{"lt", syntax.LT}, {"le", syntax.LE}, {"gt", syntax.GT}, {"ge", syntax.GE}} {
		op := c.op
		def(op2(c.name, func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
			r, err := pyCompare(op, x, y)
			return starlark.Bool(r), err
		}))
	}
	def(op2("contains", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		r, err := contains(th, x, y)
		return starlark.Bool(r), err
	}))
	def(op2("getitem", subscript))
	def(op2("countOf", func(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
		n := 0
		err := forEachItem(th, x, func(i int, v starlark.Value) (bool, error) {
			eq := identical(v, y)
			if !eq {
				var err error
				if eq, err = equal(v, y); err != nil {
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
			eq := identical(v, y)
			if !eq {
				var err error
				if eq, err = equal(v, y); err != nil {
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
			return nil, Errorf("ValueError", "sequence.index(x): x not in sequence")
		}
		return starlark.MakeInt(found), nil
	}))
	return m
}

// indexOf is operator.index: x as an int, through __index__ for
// instances.
func indexOf(x starlark.Value) (starlark.Value, error) {
	switch v := x.(type) {
	case starlark.Int:
		return v, nil
	case starlark.Bool:
		return boolInt(v), nil
	case *Instance:
		r, ok, err := v.callDunder(nil, "__index__")
		if ok {
			if err != nil {
				return nil, err
			}
			if _, isInt := r.(starlark.Int); !isInt {
				return nil, Errorf("TypeError", "__index__ returned non-int (type %s)", TypeName(r))
			}
			return r, nil
		}
	}
	return nil, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", TypeName(x))
}

// forEachItem iterates x for countOf and indexOf; f returns false to
// stop.
func forEachItem(th *starlark.Thread, x starlark.Value, f func(i int, v starlark.Value) (bool, error)) error {
	if _, ok := x.(starlark.String); !ok {
		if _, ok := x.(starlark.Iterable); !ok {
			return Errorf("TypeError", "argument of type '%s' is not iterable", TypeName(x))
		}
	}
	i := 0
	err := forEach(th, x, func(v starlark.Value) error {
		more, err := f(i, v)
		i++
		if err == nil && !more {
			return errStop
		}
		return err
	})
	if err == errStop {
		err = nil
	}
	return err
}

// contains is "y in x".
func contains(th *starlark.Thread, x, y starlark.Value) (bool, error) {
	switch v := x.(type) {
	case *starlark.List, starlark.Tuple, *deque, *Iterator:
		found := false
		err := forEachItem(th, v, func(_ int, e starlark.Value) (bool, error) {
			eq := identical(e, y)
			if !eq {
				var err error
				if eq, err = equal(e, y); err != nil {
					return false, err
				}
			}
			found = eq
			return !eq, nil
		})
		return found, err
	case *Instance:
		return v.Has(y)
	}
	r, err := starlark.Binary(syntax.IN, y, x)
	if err != nil {
		if strings.Contains(err.Error(), "unknown binary op") {
			return false, Errorf("TypeError", "argument of type '%s' is not iterable", TypeName(x))
		}
		return false, err
	}
	return bool(r.Truth()), nil
}

// subscript is x[k] for an index or key k (not a slice), for
// operator.getitem and itemgetter.
func subscript(th *starlark.Thread, x, k starlark.Value) (starlark.Value, error) {
	index := func(n int, what string) (int, error) {
		switch k.(type) {
		case starlark.Int, starlark.Bool:
		default:
			if what == "string" {
				return 0, Errorf("TypeError", "string indices must be integers, not '%s'", TypeName(k))
			}
			return 0, Errorf("TypeError", "%s indices must be integers or slices, not %s", what, TypeName(k))
		}
		i, err := toInt(k)
		if err != nil {
			return 0, Errorf("IndexError", "cannot fit 'int' into an index-sized integer")
		}
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return 0, Errorf("IndexError", "%s index out of range", what)
		}
		return i, nil
	}
	switch v := x.(type) {
	case starlark.String:
		s := string(v)
		i, err := index(pyLen(s), "string")
		if err != nil {
			return nil, err
		}
		off := byteOffset(s, i)
		return starlark.String(s[off : off+byteOffset(s[off:], 1)]), nil
	case starlark.Mapping:
		r, found, err := v.Get(k)
		if err != nil {
			if _, ok := v.(*Instance); ok {
				return nil, err
			}
			return nil, unhashable(k, err)
		}
		if !found {
			return nil, Errorf("KeyError", "%s", Repr(k))
		}
		return r, nil
	case starlark.Indexable:
		i, err := index(v.Len(), TypeName(x))
		if err != nil {
			return nil, err
		}
		return v.Index(i), nil
	}
	return nil, Errorf("TypeError", "'%s' object is not subscriptable", TypeName(x))
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
	_ Representer       = (*itemgetter)(nil)
	_ Typed             = (*itemgetter)(nil)
)

func newItemgetter(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf("TypeError", "itemgetter() takes no keyword arguments")
	}
	if len(args) == 0 {
		return nil, Errorf("TypeError", "itemgetter expected 1 argument, got 0")
	}
	return &itemgetter{items: append(starlark.Tuple(nil), args...)}, nil
}

func newAttrgetter(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf("TypeError", "attrgetter() takes no keyword arguments")
	}
	if len(args) == 0 {
		return nil, Errorf("TypeError", "attrgetter expected 1 argument, got 0")
	}
	g := &attrgetter{}
	for _, a := range args {
		s, ok := a.(starlark.String)
		if !ok {
			return nil, Errorf("TypeError", "attribute name must be a string")
		}
		g.names = append(g.names, string(s))
		g.paths = append(g.paths, strings.Split(string(s), "."))
	}
	return g, nil
}

func newMethodcaller(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 0 {
		return nil, Errorf("TypeError", "methodcaller needs at least one argument, the method name")
	}
	name, ok := args[0].(starlark.String)
	if !ok {
		return nil, Errorf("TypeError", "method name must be a string")
	}
	return &methodcaller{name: string(name), args: append(starlark.Tuple(nil), args[1:]...), kwargs: append([]starlark.Tuple(nil), kwargs...)}, nil
}

func (g *itemgetter) Name() string           { return "itemgetter" }
func (g *itemgetter) Type() string           { return "operator.itemgetter" }
func (g *itemgetter) PyType() starlark.Value { return typeItemgetter }
func (g *itemgetter) Freeze()                { g.items.Freeze() }
func (g *itemgetter) Truth() starlark.Bool   { return true }
func (g *itemgetter) Hash() (uint32, error)  { return uint32(uintptrOf(g)), nil }
func (g *itemgetter) String() string         { return Repr(g) }

func (g *itemgetter) PyRepr(th *starlark.Thread) (string, error) {
	parts := make([]string, len(g.items))
	for i, it := range g.items {
		s, err := ReprValue(th, it)
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
		return nil, Errorf("TypeError", "itemgetter() takes no keyword arguments")
	}
	if len(args) != 1 {
		return nil, Errorf("TypeError", "itemgetter expected 1 argument, got %d", len(args))
	}
	if len(g.items) == 1 {
		return subscript(th, args[0], g.items[0])
	}
	out := make(starlark.Tuple, len(g.items))
	for i, k := range g.items {
		v, err := subscript(th, args[0], k)
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
func (g *attrgetter) Hash() (uint32, error)  { return uint32(uintptrOf(g)), nil }
func (g *attrgetter) String() string         { s, _ := g.PyRepr(nil); return s }

func (g *attrgetter) PyRepr(*starlark.Thread) (string, error) {
	parts := make([]string, len(g.names))
	for i, n := range g.names {
		parts[i] = quoteString(n)
	}
	return "operator.attrgetter(" + strings.Join(parts, ", ") + ")", nil
}
func (g *attrgetter) PyStr(th *starlark.Thread) (string, error) { return g.PyRepr(th) }

func (g *attrgetter) CallInternal(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf("TypeError", "attrgetter() takes no keyword arguments")
	}
	if len(args) != 1 {
		return nil, Errorf("TypeError", "attrgetter expected 1 argument, got %d", len(args))
	}
	get := func(path []string) (starlark.Value, error) {
		v := args[0]
		for _, name := range path {
			var err error
			// Dunder names are refused as getattr refuses them: no
			// reflection through attrgetter.
			if v, err = safeGetAttr(th, v, name); err != nil {
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
func (c *methodcaller) Hash() (uint32, error)  { return uint32(uintptrOf(c)), nil }
func (c *methodcaller) String() string         { return Repr(c) }

func (c *methodcaller) PyRepr(th *starlark.Thread) (string, error) {
	parts := []string{quoteString(c.name)}
	for _, a := range c.args {
		s, err := ReprValue(th, a)
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	for _, kv := range c.kwargs {
		s, err := ReprValue(th, kv[1])
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
		return nil, Errorf("TypeError", "methodcaller() takes no keyword arguments")
	}
	if len(args) != 1 {
		return nil, Errorf("TypeError", "methodcaller expected 1 argument, got %d", len(args))
	}
	m, err := safeGetAttr(th, args[0], c.name)
	if err != nil {
		return nil, err
	}
	return starlark.Call(th, m, c.args, c.kwargs)
}
