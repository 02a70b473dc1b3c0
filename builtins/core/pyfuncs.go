package core

import (
	"io"
	"math"
	"math/big"
	"math/bits"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

func init() {
	TypeInt.New = newInt
	TypeBool.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value = starlark.False
		if err := starlark.UnpackPositionalArgs("bool", args, kwargs, 0, &x); err != nil {
			return nil, err
		}
		t, err := Truth(th, x)
		return starlark.Bool(t), err
	}
	TypeFloat.New = NewFloat
	TypeStr.New = newStr
	TypeBytes.New = newBytes
	TypeList.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var it starlark.Value = starlark.Tuple{}
		if err := starlark.UnpackPositionalArgs("list", args, kwargs, 0, &it); err != nil {
			return nil, err
		}
		vals, err := Collect(th, it)
		if err != nil {
			return nil, err
		}
		return starlark.NewList(vals), nil
	}
	TypeTuple.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var it starlark.Value = starlark.Tuple{}
		if err := starlark.UnpackPositionalArgs("tuple", args, kwargs, 0, &it); err != nil {
			return nil, err
		}
		if t, ok := it.(starlark.Tuple); ok {
			return t, nil
		}
		vals, err := Collect(th, it)
		if err != nil {
			return nil, err
		}
		return starlark.Tuple(vals), nil
	}
	TypeSet.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var it starlark.Value = starlark.Tuple{}
		if err := starlark.UnpackPositionalArgs("set", args, kwargs, 0, &it); err != nil {
			return nil, err
		}
		return newSet(th, it)
	}
	TypeDict.New = NewDict
	rangeFn := starlark.Universe["range"].(*starlark.Builtin)
	TypeRange.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(kwargs) > 0 {
			return nil, Errorf(pyexc.TypeError, "range() takes no keyword arguments")
		}
		if len(args) == 0 {
			return nil, Errorf(pyexc.TypeError, "range expected at least 1 argument, got 0")
		}
		if len(args) > 3 {
			return nil, Errorf(pyexc.TypeError, "range expected at most 3 arguments, got %d", len(args))
		}
		for i, a := range args {
			n, err := Index(a)
			if err != nil {
				return nil, err
			}
			args[i] = n
		}
		if len(args) == 3 && args[2].(starlark.Int).Sign() == 0 {
			return nil, Errorf(pyexc.ValueError, "range() arg 3 must not be zero")
		}
		return starlark.Call(th, rangeFn, args, kwargs)
	}
	TypeType.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) != 1 || len(kwargs) != 0 {
			return nil, Errorf(pyexc.TypeError, "type() takes 1 argument (creating classes with type() is not supported)")
		}
		return TypeOf(args[0]), nil
	}
	TypeObject.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args)+len(kwargs) > 0 {
			return nil, Errorf(pyexc.TypeError, "object() takes no arguments")
		}
		return &object{}, nil
	}
	TypeInt.has = func(v starlark.Value) bool {
		switch v.(type) {
		case starlark.Int, starlark.Bool:
			return true
		}
		return false
	}
}

// object is what object() returns: a unique sentinel.
type object struct{ _ byte }

func (o *object) String() string         { return "<object object>" }
func (o *object) Type() string           { return "object" }
func (o *object) Freeze()                {}
func (o *object) Truth() starlark.Bool   { return true }
func (o *object) Hash() (uint32, error)  { return 7, nil }
func (o *object) PyType() starlark.Value { return TypeObject }

func PyAll(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("all", args, kwargs)
	if err != nil {
		return nil, err
	}
	result := starlark.True
	err = ForEach(th, x, func(v starlark.Value) error {
		if t, err := Truth(th, v); err != nil || !t {
			if err != nil {
				return err
			}
			result = starlark.False
			return ErrStop
		}
		return nil
	})
	if err == ErrStop {
		err = nil
	}
	return result, err
}

func PyAny(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("any", args, kwargs)
	if err != nil {
		return nil, err
	}
	result := starlark.False
	err = ForEach(th, x, func(v starlark.Value) error {
		if t, err := Truth(th, v); err != nil || t {
			if err != nil {
				return err
			}
			result = starlark.True
			return ErrStop
		}
		return nil
	})
	if err == ErrStop {
		err = nil
	}
	return result, err
}

func PyASCII(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("ascii", args, kwargs)
	if err != nil {
		return nil, err
	}
	s, err := ReprValue(th, x)
	return starlark.String(asciiRepr(s)), err
}

func intPrefixed(name, prefix string, base int) BuiltinFn {
	return func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		x, err := oneArg(name, args, kwargs)
		if err != nil {
			return nil, err
		}
		i, err := Index(x)
		if err != nil {
			return nil, err
		}
		n := i.BigInt()
		if n.Sign() < 0 {
			return starlark.String("-" + prefix + new(big.Int).Neg(n).Text(base)), nil
		}
		return starlark.String(prefix + n.Text(base)), nil
	}
}

var (
	PyBin = intPrefixed("bin", "0b", 2)
	PyOct = intPrefixed("oct", "0o", 8)
	PyHex = intPrefixed("hex", "0x", 16)
)

func PyCallable(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("callable", args, kwargs)
	if err != nil {
		return nil, err
	}
	_, ok := x.(starlark.Callable)
	return starlark.Bool(ok), nil
}

func PyChr(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("chr", args, kwargs)
	if err != nil {
		return nil, err
	}
	i, err := IndexInt(x)
	if err != nil {
		return nil, err
	}
	if i < 0 || i > 0x10ffff {
		return nil, Errorf(pyexc.ValueError, "chr() arg not in range(0x110000)")
	}
	return starlark.String(string(rune(i))), nil
}

func PyOrd(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("ord", args, kwargs)
	if err != nil {
		return nil, err
	}
	switch s := x.(type) {
	case starlark.String:
		if n := utf8.RuneCountInString(string(s)); n != 1 {
			return nil, Errorf(pyexc.TypeError, "ord() expected a character, but string of length %d found", n)
		}
		r, _ := utf8.DecodeRuneInString(string(s))
		return starlark.MakeInt(int(r)), nil
	case starlark.Bytes:
		if len(s) != 1 {
			return nil, Errorf(pyexc.TypeError, "ord() expected a character, but string of length %d found", len(s))
		}
		return starlark.MakeInt(int(s[0])), nil
	}
	return nil, Errorf(pyexc.TypeError, "ord() expected string of length 1, but %s found", TypeName(x))
}

func PyDir(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("dir", args, kwargs)
	if err != nil {
		return nil, err
	}
	var names []string
	var table map[string]*starlark.Builtin
	switch x.(type) {
	case starlark.String:
		table = strMethods
	case *starlark.List:
		table = ListMethods
	case *starlark.Dict:
		table = DictMethods
	case *starlark.Set:
		table = setMethods
	case starlark.Tuple:
		table = TupleMethods
	case starlark.Int, starlark.Bool:
		table = intMethods
	case starlark.Float:
		table = floatMethods
	}
	for k := range table {
		names = append(names, k)
	}
	if h, ok := x.(starlark.HasAttrs); ok && table == nil {
		for _, k := range h.AttrNames() {
			if !strings.HasPrefix(k, "__") {
				names = append(names, k)
			}
		}
	}
	sort.Strings(names)
	out := make([]starlark.Value, len(names))
	for i, n := range names {
		out[i] = starlark.String(n)
	}
	return starlark.NewList(out), nil
}

func PyDivmod(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var a, b starlark.Value
	if err := starlark.UnpackPositionalArgs("divmod", args, kwargs, 2, &a, &b); err != nil {
		return nil, err
	}
	if r, ok, err := numberDivmod(a, b); ok {
		return r, err
	}
	a, b = Numeric(a), Numeric(b)
	if !isNumber(a) || !isNumber(b) {
		return nil, Errorf(pyexc.TypeError, "unsupported operand type(s) for divmod(): '%s' and '%s'", TypeName(a), TypeName(b))
	}
	if zero(b) {
		if _, ok := a.(starlark.Float); ok {
			return nil, Errorf(pyexc.ZeroDivisionError, "float divmod()")
		}
		if _, ok := b.(starlark.Float); ok {
			return nil, Errorf(pyexc.ZeroDivisionError, "float divmod()")
		}
		return nil, Errorf(pyexc.ZeroDivisionError, "integer division or modulo by zero")
	}
	if fx, fy, ok := floatOperands(a, b); ok {
		if intTooLarge(a, b) {
			return nil, errIntTooLarge()
		}
		// CPython's float divmod: divmod(1, 0.1) is (9.0, 0.09999999999999995).
		q, r := FloatDivmod(fx, fy)
		return starlark.Tuple{starlark.Float(q), starlark.Float(r)}, nil
	}
	q, err := starlark.Binary(syntax.SLASHSLASH, a, b)
	if err != nil {
		return nil, err
	}
	r, err := starlark.Binary(syntax.PERCENT, a, b)
	if err != nil {
		return nil, err
	}
	return starlark.Tuple{q, r}, nil
}

func PyEnumerate(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	start := 0
	if err := starlark.UnpackArgs("enumerate", args, kwargs, "iterable", &it, "start?", &start); err != nil {
		return nil, err
	}
	src, err := PyIter(th, it)
	if err != nil {
		return nil, err
	}
	i := start
	return NewIterator("enumerate", func() (starlark.Value, bool, error) {
		v, ok, err := src.Next()
		if !ok || err != nil {
			return nil, false, err
		}
		i++
		return starlark.Tuple{starlark.MakeInt(i - 1), v}, true, nil
	}), nil
}

func PyZip(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	strict := false
	if err := starlark.UnpackArgs("zip", nil, kwargs, "strict?", &strict); err != nil {
		return nil, err
	}
	srcs := make([]*Iterator, len(args))
	for i, a := range args {
		it, err := PyIter(th, a)
		if err != nil {
			if _, ok := a.(starlark.Iterable); ok {
				return nil, err // raised while iterating a user iterable
			}
			return nil, Errorf(pyexc.TypeError, "zip argument #%d must support iteration", i+1)
		}
		srcs[i] = it
	}
	return NewIterator("zip", func() (starlark.Value, bool, error) {
		if len(srcs) == 0 {
			return nil, false, nil
		}
		t := make(starlark.Tuple, len(srcs))
		for i, s := range srcs {
			v, ok, err := s.Next()
			if err != nil {
				return nil, false, err
			}
			if !ok {
				if strict && i > 0 {
					return nil, false, Errorf(pyexc.ValueError, "zip() argument %d is shorter than argument 1", i+1)
				}
				return nil, false, nil
			}
			t[i] = v
		}
		return t, true, nil
	}), nil
}

// PyMap is map(f, *iterables): a lazy iterator, as in Python, so that
// map over an endless iterator works with next() and f's side effects
// happen as the items are consumed. f runs on the consumer's thread
// (see Iterator.step); an exception it raises reaches the consumer (a
// lowered for loop reports it through HelperLoopCheck).
func PyMap(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 2 || len(kwargs) > 0 {
		return nil, Errorf(pyexc.TypeError, "map() must have at least two arguments.")
	}
	f := args[0]
	srcs := make([]*Iterator, len(args)-1)
	for i, a := range args[1:] {
		it, err := PyIter(th, a)
		if err != nil {
			return nil, err
		}
		srcs[i] = it
	}
	it := &Iterator{name: "map", group: GeneratorsOf(th)}
	it.step = func(th *starlark.Thread) (starlark.Value, bool, error) {
		fargs := make(starlark.Tuple, len(srcs))
		for i, s := range srcs {
			v, ok, err := s.NextOn(th)
			if err != nil || !ok {
				return nil, false, err
			}
			fargs[i] = v
		}
		r, err := starlark.Call(th, f, fargs, nil)
		if err != nil {
			return nil, false, err
		}
		return r, true, nil
	}
	return it, nil
}

// PyFilter is filter(f, iterable), lazy as PyMap. An item is kept when
// f's result (or, for f None, the item) is true; a __bool__ that raises
// propagates.
func PyFilter(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f, it starlark.Value
	if err := starlark.UnpackPositionalArgs("filter", args, kwargs, 2, &f, &it); err != nil {
		return nil, err
	}
	src, err := PyIter(th, it)
	if err != nil {
		return nil, err
	}
	return NewFilterIterator(th, "filter", f, src, true), nil
}

// NewFilterIterator is filter (keep true) or itertools.filterfalse (keep
// false) of src by f: it yields the items whose f(item) (the item itself
// for f None) has truth keep, running f on the consumer's thread.
func NewFilterIterator(th *starlark.Thread, name string, f starlark.Value, src *Iterator, keep bool) *Iterator {
	return NewStepIterator(th, name, func(th *starlark.Thread) (starlark.Value, bool, error) {
		for n := 1; ; n++ {
			if n%CheckEvery == 0 {
				if err := Interrupted(th); err != nil {
					return nil, false, err
				}
			}
			v, ok, err := src.NextOn(th)
			if err != nil || !ok {
				return nil, false, err
			}
			r := v
			if f != starlark.None {
				if r, err = starlark.Call(th, f, starlark.Tuple{v}, nil); err != nil {
					return nil, false, err
				}
			}
			t, err := Truth(th, r)
			if err != nil {
				return nil, false, err
			}
			if t == keep {
				return v, true, nil
			}
		}
	})
}

func PyFormat(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	spec := ""
	if err := starlark.UnpackPositionalArgs("format", args, kwargs, 1, &x, &spec); err != nil {
		return nil, err
	}
	s, err := FormatValue(th, x, spec)
	return starlark.String(s), err
}

func PyGetattr(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, dflt starlark.Value
	var name string
	if err := starlark.UnpackPositionalArgs("getattr", args, kwargs, 2, &x, &name, &dflt); err != nil {
		return nil, err
	}
	v, err := SafeGetAttr(th, x, name)
	if err != nil && dflt != nil {
		if e, ok := err.(*Error); ok && e.Type == pyexc.AttributeError.Name() && !strings.HasPrefix(name, "__") {
			return dflt, nil
		}
	}
	return v, err
}

func PyHasattr(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	var name string
	if err := starlark.UnpackPositionalArgs("hasattr", args, kwargs, 2, &x, &name); err != nil {
		return nil, err
	}
	if strings.HasPrefix(name, "__") {
		return nil, Errorf(pyexc.AttributeError, "access to attribute '%s' is not allowed", name)
	}
	_, err := GetAttr(th, x, name)
	return starlark.Bool(err == nil), nil
}

func PySetattr(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, v starlark.Value
	var name string
	if err := starlark.UnpackPositionalArgs("setattr", args, kwargs, 3, &x, &name, &v); err != nil {
		return nil, err
	}
	if strings.HasPrefix(name, "__") {
		return nil, Errorf(pyexc.AttributeError, "access to attribute '%s' is not allowed", name)
	}
	if s, ok := x.(starlark.HasSetField); ok {
		return starlark.None, s.SetField(name, v)
	}
	return nil, Errorf(pyexc.AttributeError, "'%s' object has no attribute '%s'", TypeName(x), name)
}

func PyHash(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("hash", args, kwargs)
	if err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case starlark.Int:
		// CPython: the value modulo the Mersenne prime 2**61-1, sign kept.
		m := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 61), big.NewInt(1))
		a := new(big.Int).Abs(v.BigInt())
		a.Mod(a, m)
		if v.Sign() < 0 {
			a.Neg(a)
			if a.Int64() == -1 {
				a.SetInt64(-2)
			}
		}
		return starlark.MakeBigInt(a), nil
	case starlark.Bool:
		return BoolInt(v), nil
	case starlark.Float:
		if f := float64(v); f == math.Trunc(f) && !math.IsInf(f, 0) {
			n, _ := big.NewFloat(f).Int(nil)
			return PyHash(th, fn, starlark.Tuple{starlark.MakeBigInt(n)}, nil)
		}
		if h, ok := pyNumberHash(v); ok {
			return starlark.MakeInt64(h), nil
		}
	case PyNumber:
		if h, ok := pyNumberHash(v); ok {
			return starlark.MakeInt64(h), nil
		}
	}
	h, err := x.Hash()
	if err != nil {
		return nil, Errorf(pyexc.TypeError, "unhashable type: '%s'", TypeName(x))
	}
	return starlark.MakeInt64(int64(h)), nil
}

func PyIsinstance(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, t starlark.Value
	if err := starlark.UnpackPositionalArgs("isinstance", args, kwargs, 2, &x, &t); err != nil {
		return nil, err
	}
	ok, err := isInstance(x, t)
	return starlark.Bool(ok), err
}

func PyIssubclass(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var c, t starlark.Value
	if err := starlark.UnpackPositionalArgs("issubclass", args, kwargs, 2, &c, &t); err != nil {
		return nil, err
	}
	ok, err := isSubclass(c, t)
	return starlark.Bool(ok), err
}

func PyIterFn(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 2 && len(kwargs) == 0 {
		return callableIterator(th, args[0], args[1])
	}
	if len(kwargs) > 0 {
		return nil, Errorf(pyexc.TypeError, "iter() takes no keyword arguments")
	}
	switch {
	case len(args) == 0:
		return nil, Errorf(pyexc.TypeError, "iter expected at least 1 argument, got 0")
	case len(args) > 2:
		return nil, Errorf(pyexc.TypeError, "iter expected at most 2 arguments, got %d", len(args))
	}
	return PyIter(th, args[0])
}

// callableIterator is iter(f, sentinel): f() on each next, until it
// returns a value equal to sentinel or raises StopIteration. f runs on
// the consumer's thread, under the consuming execution's limits.
func callableIterator(th *starlark.Thread, f, sentinel starlark.Value) (starlark.Value, error) {
	if _, ok := f.(starlark.Callable); !ok {
		return nil, Errorf(pyexc.TypeError, "iter(v, w): v must be callable")
	}
	done := false
	return NewStepIterator(th, "callable_iterator", func(th *starlark.Thread) (starlark.Value, bool, error) {
		if done {
			return nil, false, nil
		}
		v, err := starlark.Call(th, f, nil, nil)
		if err != nil {
			done = true
			if isStopIteration(err) {
				return nil, false, nil
			}
			return nil, false, err
		}
		eq, err := EqualOn(th, v, sentinel)
		if err != nil || eq {
			done = true
			return nil, false, err
		}
		return v, true, nil
	}), nil
}

func PyNext(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, dflt starlark.Value
	if err := starlark.UnpackPositionalArgs("next", args, kwargs, 1, &x, &dflt); err != nil {
		return nil, err
	}
	it, ok := x.(*Iterator)
	if !ok {
		if n, ok := x.(interface {
			PyNext(th *starlark.Thread) (starlark.Value, bool, error)
		}); ok {
			v, ok, err := n.PyNext(th)
			if err != nil || ok {
				return v, err
			}
			if dflt != nil {
				return dflt, nil
			}
			return nil, &Error{Type: pyexc.StopIteration.Name()}
		}
		return nil, Errorf(pyexc.TypeError, "'%s' object is not an iterator", TypeName(x))
	}
	v, ok, err := it.NextOn(th)
	if err != nil {
		return nil, err
	}
	if !ok {
		if dflt != nil {
			return dflt, nil
		}
		return nil, &Error{Type: pyexc.StopIteration.Name()}
	}
	return v, nil
}

func PyLenFn(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("len", args, kwargs)
	if err != nil {
		return nil, err
	}
	if s, ok := x.(starlark.String); ok {
		return starlark.MakeInt(PyLen(string(s))), nil
	}
	if l, ok := x.(interface {
		PyLen(th *starlark.Thread) (int, error)
	}); ok {
		n, err := l.PyLen(th)
		return starlark.MakeInt(n), err
	}
	if n := starlark.Len(x); n >= 0 {
		return starlark.MakeInt(n), nil
	}
	return nil, Errorf(pyexc.TypeError, "object of type '%s' has no len()", TypeName(x))
}

func PyPowFn(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var a, b, m starlark.Value
	if err := starlark.UnpackArgs("pow", args, kwargs, "base", &a, "exp", &b, "mod?", &m); err != nil {
		return nil, err
	}
	if m == nil || m == starlark.None {
		return Pow(th, a, b)
	}
	ia, okA := Int(a)
	ib, okB := Int(b)
	im, okM := Int(m)
	if !okA || !okB || !okM {
		return nil, Errorf(pyexc.TypeError, "pow() 3rd argument not allowed unless all arguments are integers")
	}
	x, y, mod := ia.BigInt(), ib.BigInt(), im.BigInt()
	if mod.Sign() == 0 {
		return nil, Errorf(pyexc.ValueError, "pow() 3rd argument cannot be 0")
	}
	if y.Sign() < 0 {
		// The inverse is an extended gcd, quadratic and uninterruptible.
		if mod.BitLen() > MaxGCDBits {
			return nil, Errorf(pyexc.MemoryError, "pow() with a negative exponent and a modulus of %d bits is too slow to run here (the limit is %d bits)", mod.BitLen(), MaxGCDBits)
		}
		inv := new(big.Int).ModInverse(new(big.Int).Mod(x, new(big.Int).Abs(mod)), new(big.Int).Abs(mod))
		if inv == nil {
			return nil, Errorf(pyexc.ValueError, "base is not invertible for the given modulus")
		}
		x, y = inv, new(big.Int).Neg(y)
	}
	r, err := ExpMod(th, x, y, new(big.Int).Abs(mod))
	if err != nil {
		return nil, err
	}
	if mod.Sign() < 0 && r.Sign() != 0 {
		r.Add(r, mod)
	}
	return starlark.MakeBigInt(r), nil
}

func PyPrint(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var sep, end starlark.Value = starlark.String(" "), starlark.String("\n")
	var file, flush starlark.Value
	if err := starlark.UnpackArgs("print", nil, kwargs, "sep?", &sep, "end?", &end, "file?", &file, "flush?", &flush); err != nil {
		return nil, err
	}
	if file != nil && file != starlark.None {
		return nil, Errorf(pyexc.TypeError, "print(file=...) is not supported: there are no files")
	}
	seps, ends := " ", "\n"
	if sep != starlark.None {
		s, ok := sep.(starlark.String)
		if !ok {
			return nil, Errorf(pyexc.TypeError, "sep must be None or a string, not %s", TypeName(sep))
		}
		seps = string(s)
	}
	if end != starlark.None {
		s, ok := end.(starlark.String)
		if !ok {
			return nil, Errorf(pyexc.TypeError, "end must be None or a string, not %s", TypeName(end))
		}
		ends = string(s)
	}
	if w, ok := th.Local(contract.StdoutKey).(contract.ElidingWriter); ok {
		// The line is built within the writer's keep of its start and its
		// end: a huge value costs what the output keeps, not its repr. A
		// failing argument prints nothing, as in Python.
		b := NewElidingBuilder(th, w.Keep())
		for i, a := range args {
			if i > 0 {
				b.WriteString(seps)
			}
			if err := WriteStr(th, b, a); err != nil {
				return nil, err
			}
		}
		b.WriteString(ends)
		if err := b.Err(); err != nil {
			return nil, err
		}
		w.WriteElided(b.Elided())
		return starlark.None, nil
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteString(seps)
		}
		s, err := StrValue(th, a)
		if err != nil {
			return nil, err
		}
		b.WriteString(s)
	}
	if w, ok := th.Local(contract.StdoutKey).(io.Writer); ok {
		b.WriteString(ends)
		_, err := io.WriteString(w, b.String())
		return starlark.None, err
	}
	text := b.String()
	if ends != "\n" {
		text += ends
	}
	if th.Print != nil {
		th.Print(th, text)
	}
	return starlark.None, nil
}

func PyRepr(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("repr", args, kwargs)
	if err != nil {
		return nil, err
	}
	s, err := ReprValue(th, x)
	return starlark.String(s), err
}

func PyReversed(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("reversed", args, kwargs)
	if err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case starlark.String:
		rs := []rune(string(v))
		i := len(rs)
		return NewIterator("reversed", func() (starlark.Value, bool, error) {
			if i == 0 {
				return nil, false, nil
			}
			i--
			return starlark.String(string(rs[i])), true, nil
		}), nil
	case starlark.Bytes:
		i := len(v)
		return NewIterator("reversed", func() (starlark.Value, bool, error) {
			if i == 0 {
				return nil, false, nil
			}
			i--
			return starlark.MakeInt(int(v[i])), true, nil
		}), nil
	case starlark.Indexable:
		i := v.Len()
		return NewIterator("reversed", func() (starlark.Value, bool, error) {
			if i > v.Len() {
				i = v.Len()
			}
			if i == 0 {
				return nil, false, nil
			}
			i--
			return v.Index(i), true, nil
		}), nil
	case *starlark.Dict, *dictView:
		vals, err := Collect(th, v)
		if err != nil {
			return nil, err
		}
		for i, j := 0, len(vals)-1; i < j; i, j = i+1, j-1 {
			vals[i], vals[j] = vals[j], vals[i]
		}
		return SliceIterator("dict_reversekeyiterator", vals), nil
	}
	return nil, Errorf(pyexc.TypeError, "'%s' object is not reversible", TypeName(x))
}

func PyRound(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, nd starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs("round", args, kwargs, "number", &x, "ndigits?", &nd); err != nil {
		return nil, err
	}
	x = Numeric(x)
	if r, ok := x.(PyRounder); ok {
		return r.PyRound(nd)
	}
	if nd == starlark.None {
		switch v := x.(type) {
		case starlark.Int:
			return v, nil
		case starlark.Float:
			return FloatToInt(math.RoundToEven(float64(v)))
		}
		return nil, Errorf(pyexc.TypeError, "type %s doesn't define __round__ method", TypeName(x))
	}
	n, err := IndexInt(nd)
	if err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case starlark.Int:
		if n >= 0 {
			return v, nil
		}
		if -n > 100000 {
			return starlark.MakeInt(0), nil
		}
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-n)), nil)
		r := roundHalfEvenRat(new(big.Rat).SetFrac(v.BigInt(), p))
		return starlark.MakeBigInt(r.Mul(r, p)), nil
	case starlark.Float:
		f := float64(v)
		if math.IsInf(f, 0) || math.IsNaN(f) || n > 330 {
			return v, nil
		}
		if n < -330 {
			return starlark.Float(math.Copysign(0, f)), nil
		}
		// Round the exact binary value, as CPython does.
		p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(Abs(n))), nil))
		r := new(big.Rat).SetFloat64(f)
		if n >= 0 {
			r.Mul(r, p)
		} else {
			r.Quo(r, p)
		}
		q := new(big.Rat).SetInt(roundHalfEvenRat(r))
		if n >= 0 {
			q.Quo(q, p)
		} else {
			q.Mul(q, p)
		}
		out, _ := q.Float64()
		return starlark.Float(math.Copysign(out, f)), nil
	}
	return nil, Errorf(pyexc.TypeError, "type %s doesn't define __round__ method", TypeName(x))
}

func roundHalfEvenRat(r *big.Rat) *big.Int {
	num, den := r.Num(), r.Denom()
	q, m := new(big.Int).DivMod(num, den, new(big.Int)) // floor division, m >= 0
	twice := new(big.Int).Lsh(m, 1)
	switch twice.Cmp(den) {
	case 1:
		q.Add(q, big.NewInt(1))
	case 0:
		if q.Bit(0) == 1 {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

func PySorted(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	var key starlark.Value = starlark.None
	if len(args) > 1 {
		// key and reverse are keyword-only.
		return nil, Errorf(pyexc.TypeError, "sorted expected 1 argument, got %d", len(args))
	}
	var rev starlark.Value = starlark.False
	if err := starlark.UnpackArgs("sorted", args, kwargs, "iterable", &it, "key?", &key, "reverse?", &rev); err != nil {
		return nil, err
	}
	reverse, err := reverseArg(rev)
	if err != nil {
		return nil, err
	}
	vals, err := Collect(th, it)
	if err != nil {
		return nil, err
	}
	if err := SortValues(th, vals, key, reverse); err != nil {
		return nil, err
	}
	return starlark.NewList(vals), nil
}

func PySum(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	var acc starlark.Value = starlark.MakeInt(0)
	if err := starlark.UnpackArgs("sum", args, kwargs, "iterable", &it, "start?", &acc); err != nil {
		return nil, err
	}
	switch acc.(type) {
	case starlark.String:
		return nil, Errorf(pyexc.TypeError, "sum() can't sum strings [use ''.join(seq) instead]")
	case starlark.Bytes:
		return nil, Errorf(pyexc.TypeError, "sum() can't sum bytes [use b''.join(seq) instead]")
	}
	acc = Numeric(acc)
	err := ForEach(th, it, func(v starlark.Value) error {
		// Each addition costs the accumulator's size: once it is more
		// than a machine word (a big int, a list being concatenated, a
		// Fraction), forEach's check every few thousand items is too
		// rare, and the deadline is checked at every item.
		if sumIsCostly(acc) {
			if err := Interrupted(th); err != nil {
				return err
			}
		}
		v = Numeric(v)
		if n := starlark.Len(v); n > 0 {
			if err := Alloc(th, int64(n+starlark.Len(acc))*ElemSize); err != nil {
				return err
			}
		}
		r, err := starlark.Binary(syntax.PLUS, acc, v)
		if err != nil {
			if isNumber(acc) && isNumber(v) && intTooLarge(acc, v) {
				return errIntTooLarge()
			}
			return Errorf(pyexc.TypeError, "unsupported operand type(s) for +: '%s' and '%s'", TypeName(acc), TypeName(v))
		}
		acc = r
		return nil
	})
	return acc, err
}

// sumIsCostly reports whether adding to acc costs more than a few
// machine operations.
func sumIsCostly(acc starlark.Value) bool {
	switch a := acc.(type) {
	case starlark.Int:
		_, small := a.Int64()
		return !small
	case starlark.Float:
		return false
	}
	return true
}

func newInt(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, base starlark.Value
	if len(args) > 2 {
		return nil, Errorf(pyexc.TypeError, "int() takes at most 2 arguments (%d given)", len(args))
	}
	for _, kv := range kwargs {
		if k := string(kv[0].(starlark.String)); k != "base" {
			return nil, Errorf(pyexc.TypeError, "'%s' is an invalid keyword argument for int()", k)
		}
	}
	if err := starlark.UnpackArgs("int", args, kwargs, "x?", &x, "base?", &base); err != nil {
		return nil, err
	}
	if x == nil {
		if base != nil {
			return nil, Errorf(pyexc.TypeError, "int() missing string argument")
		}
		return starlark.MakeInt(0), nil
	}
	if base != nil {
		b, err := IndexInt(base)
		if err != nil {
			return nil, err
		}
		switch s := x.(type) {
		case starlark.String:
			return parseInt(string(s), b)
		case starlark.Bytes:
			return parseInt(string(s), b)
		}
		return nil, Errorf(pyexc.TypeError, "int() can't convert non-string with explicit base")
	}
	switch v := x.(type) {
	case PyNumber:
		return v.PyInt()
	case starlark.Int:
		return v, nil
	case starlark.Bool:
		return BoolInt(v), nil
	case starlark.Float:
		return FloatToInt(math.Trunc(float64(v)))
	case starlark.String:
		return parseInt(string(v), 10)
	case starlark.Bytes:
		return parseInt(string(v), 10)
	case *Instance:
		// An IntEnum member is its value; a class converts with
		// __int__, else __index__, else __trunc__, as CPython tries.
		if n := enumOperand(v); n != starlark.Value(v) {
			return n, nil
		}
		for _, name := range []string{"__int__", "__index__", "__trunc__"} {
			r, ok, err := v.CallDunder(th, name)
			if !ok {
				continue
			}
			if err != nil {
				return nil, err
			}
			if n, isInt := Int(r); isInt {
				return n, nil
			}
			return nil, Errorf(pyexc.TypeError, "%s returned non-int (type %s)", name, TypeName(r))
		}
	}
	return nil, Errorf(pyexc.TypeError, "int() argument must be a string, a bytes-like object or a real number, not '%s'", TypeName(x))
}

func parseInt(s string, base int) (starlark.Value, error) {
	bad := func() error {
		return Errorf(pyexc.ValueError, "invalid literal for int() with base %d: %s", base, QuoteString(s))
	}
	if base != 0 && (base < 2 || base > 36) {
		return nil, Errorf(pyexc.ValueError, "int() base must be >= 2 and <= 36, or 0")
	}
	t := asciiDecimals(strings.TrimFunc(s, IsPySpace))
	neg := false
	if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
		neg = t[0] == '-'
		t = t[1:]
	}
	lower := strings.ToLower(t)
	b := base
	for _, p := range []struct {
		prefix string
		base   int
	}{{"0x", 16}, {"0o", 8}, {"0b", 2}} {
		if strings.HasPrefix(lower, p.prefix) && (base == 0 || base == p.base) {
			t, b = t[2:], p.base
			t = strings.TrimPrefix(t, "_")
			break
		}
	}
	if b == 0 {
		b = 10
		if len(t) > 1 && t[0] == '0' && strings.Trim(t, "0_") != "" {
			return nil, bad()
		}
	}
	if t == "" || strings.HasPrefix(t, "_") || strings.HasSuffix(t, "_") || strings.Contains(t, "__") {
		return nil, bad()
	}
	t = strings.ReplaceAll(t, "_", "")
	if b&(b-1) != 0 && len(t) > MaxIntDigits {
		// CPython limits every base but the powers of two.
		return nil, ErrStrToInt(len(t))
	}
	if b&(b-1) == 0 {
		// Those it does not limit are bounded in bits (bigint.go).
		if err := checkBuiltIntBits(int64(len(strings.TrimLeft(t, "0"))) * int64(bits.Len(uint(b-1)))); err != nil {
			return nil, err
		}
	}
	n, ok := new(big.Int).SetString(t, b)
	if !ok {
		return nil, bad()
	}
	if neg {
		n.Neg(n)
	}
	return starlark.MakeBigInt(n), nil
}

// validUnderscores reports whether every '_' in s sits between digits.
func validUnderscores(s string) bool {
	if strings.ContainsAny(s, "xpi ") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '_' {
			if i == 0 || i == len(s)-1 || !IsDigit(s[i-1]) || !IsDigit(s[i+1]) {
				return false
			}
		}
	}
	return true
}

func newStr(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 1 && len(kwargs) == 0 {
		if s, ok := args[0].(starlark.String); ok {
			return s, nil
		}
		if s, ok := scalarRepr(args[0]); ok {
			return starlark.String(s), nil
		}
	}
	var x starlark.Value = starlark.String("")
	var enc, errs starlark.Value
	if err := starlark.UnpackArgs("str", args, kwargs, "object?", &x, "encoding?", &enc, "errors?", &errs); err != nil {
		return nil, err
	}
	if enc != nil || errs != nil {
		b, ok := x.(starlark.Bytes)
		if !ok {
			return nil, Errorf(pyexc.TypeError, "decoding to str: need a bytes-like object, %s found", TypeName(x))
		}
		e, es := "utf-8", "strict"
		if s, ok := enc.(starlark.String); ok {
			e = string(s)
		}
		if s, ok := errs.(starlark.String); ok {
			es = string(s)
		}
		return decodeBytes(string(b), e, es)
	}
	s, err := StrValue(th, x)
	return starlark.String(s), err
}

func newBytes(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value = starlark.Bytes("")
	enc, errs := "utf-8", "strict"
	if err := starlark.UnpackArgs("bytes", args, kwargs, "source?", &x, "encoding?", &enc, "errors?", &errs); err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case starlark.Bytes:
		return v, nil
	case starlark.String:
		if len(args) < 2 && len(kwargs) == 0 {
			return nil, Errorf(pyexc.TypeError, "string argument without an encoding")
		}
		return encodeString(string(v), enc, errs)
	case starlark.Int:
		n, err := IndexInt(v)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, Errorf(pyexc.ValueError, "negative count")
		}
		if err := Alloc(th, int64(n)); err != nil {
			return nil, err
		}
		return starlark.Bytes(make([]byte, n)), nil
	}
	vals, err := Collect(th, x)
	if err != nil {
		return nil, err
	}
	b := make([]byte, len(vals))
	for i, v := range vals {
		n, err := IndexInt(v)
		if err != nil || n < 0 || n > 255 {
			return nil, Errorf(pyexc.ValueError, "bytes must be in range(0, 256)")
		}
		b[i] = byte(n)
	}
	return starlark.Bytes(b), nil
}

// reverseArg is the reverse argument of sorted and list.sort: an int
// (bools included), as CPython takes it.
func reverseArg(v starlark.Value) (bool, error) {
	n, err := Index(v)
	if err != nil {
		if _, ok := v.(starlark.Float); ok {
			return false, Errorf(pyexc.TypeError, "'float' object cannot be interpreted as an integer")
		}
		return false, err
	}
	return n.Sign() != 0, nil
}

// asciiDecimals replaces the Unicode decimal digits of s (Arabic-Indic,
// fullwidth, ...) by ASCII ones, as CPython does before parsing an int
// or a float.
func asciiDecimals(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r >= 0x80 && IsPyDecimal(r) {
			return '0' + rune(DecimalValue(r))
		}
		return r
	}, s)
}
