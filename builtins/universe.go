package builtins

import (
	"io"
	"math"
	"math/big"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// StdoutKey is the thread-local key under which the engine stores the
// io.Writer that print writes to. print writes exactly what Python would
// (the arguments joined by sep, then end). Without it, print falls back to
// thread.Print, which appends its own newline: output then matches Python
// only for the default end="\n".
const StdoutKey = "star-agent.stdout"

// Universe returns the Python-compatible builtins, used in place of
// starlark.Universe. Every builtin whose time or memory depends on its
// arguments checks the deadline and charges the memory budget. The
// engine adds final_answer and the tools.
func Universe() starlark.StringDict {
	u := starlark.StringDict{
		"None":  starlark.None,
		"True":  starlark.True,
		"False": starlark.False,

		"int":       typeInt,
		"float":     typeFloat,
		"bool":      typeBool,
		"str":       typeStr,
		"bytes":     typeBytes,
		"list":      typeList,
		"tuple":     typeTuple,
		"dict":      typeDict,
		"set":       typeSet,
		"frozenset": typeFrozenSet,
		"range":     typeRange,
		"slice":     typeSlice,
		"type":      typeType,
		"object":    typeObject,
	}
	for name, fn := range universeFuncs {
		u[name] = starlark.NewBuiltin(name, fn)
	}
	u["property"] = propertyFn
	u["staticmethod"] = staticmethodFn
	u["classmethod"] = classmethodFn
	u["NotImplemented"] = notImplemented
	universeExceptions(u)
	return u
}

var universeFuncs map[string]builtinFn

func init() {
	universeFuncs = map[string]builtinFn{
		"abs": pyAbs, "all": pyAll, "any": pyAny, "ascii": pyASCII, "bin": pyBin,
		"callable": pyCallable, "chr": pyChr, "dir": pyDir, "divmod": pyDivmod,
		"enumerate": pyEnumerate, "filter": pyFilter, "format": pyFormat,
		"getattr": pyGetattr, "hasattr": pyHasattr, "hash": pyHash, "hex": pyHex,
		"isinstance": pyIsinstance, "issubclass": pyIssubclass, "iter": pyIterFn,
		"len": pyLenFn, "map": pyMap, "max": pyMax, "min": pyMin, "next": pyNext,
		"oct": pyOct, "ord": pyOrd, "pow": pyPowFn, "print": pyPrint, "repr": pyRepr,
		"reversed": pyReversed, "round": pyRound, "setattr": pySetattr,
		"sorted": pySorted, "sum": pySum, "zip": pyZip, "vars": pyVars,
	}
	typeInt.new = newInt
	typeBool.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value = starlark.False
		if err := starlark.UnpackPositionalArgs("bool", args, kwargs, 0, &x); err != nil {
			return nil, err
		}
		return x.Truth(), nil
	}
	typeFloat.new = newFloat
	typeStr.new = newStr
	typeBytes.new = newBytes
	typeList.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var it starlark.Value = starlark.Tuple{}
		if err := starlark.UnpackPositionalArgs("list", args, kwargs, 0, &it); err != nil {
			return nil, err
		}
		vals, err := collect(th, it)
		if err != nil {
			return nil, err
		}
		return starlark.NewList(vals), nil
	}
	typeTuple.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var it starlark.Value = starlark.Tuple{}
		if err := starlark.UnpackPositionalArgs("tuple", args, kwargs, 0, &it); err != nil {
			return nil, err
		}
		if t, ok := it.(starlark.Tuple); ok {
			return t, nil
		}
		vals, err := collect(th, it)
		if err != nil {
			return nil, err
		}
		return starlark.Tuple(vals), nil
	}
	typeSet.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var it starlark.Value = starlark.Tuple{}
		if err := starlark.UnpackPositionalArgs("set", args, kwargs, 0, &it); err != nil {
			return nil, err
		}
		return newSet(th, it)
	}
	typeDict.new = newDict
	rangeFn := starlark.Universe["range"].(*starlark.Builtin)
	typeRange.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		for i, a := range args {
			if b, ok := a.(starlark.Bool); ok {
				args[i] = boolInt(b)
			} else if _, ok := a.(starlark.Int); !ok {
				return nil, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", TypeName(a))
			}
		}
		return starlark.Call(th, rangeFn, args, kwargs)
	}
	typeType.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) != 1 || len(kwargs) != 0 {
			return nil, Errorf("TypeError", "type() takes 1 argument (creating classes with type() is not supported)")
		}
		return typeOf(args[0]), nil
	}
	typeObject.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args)+len(kwargs) > 0 {
			return nil, Errorf("TypeError", "object() takes no arguments")
		}
		return &object{}, nil
	}
	typeInt.has = func(v starlark.Value) bool {
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
func (o *object) PyType() starlark.Value { return typeObject }

func oneArg(name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &x)
	return x, err
}

func pyAbs(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("abs", args, kwargs)
	if err != nil {
		return nil, err
	}
	switch x := x.(type) {
	case pyRounder:
		return x.pyAbs()
	case *Instance:
		v, ok, err := x.callDunder(th, "__abs__")
		if !ok {
			return nil, Errorf("TypeError", "bad operand type for abs(): '%s'", x.class.name)
		}
		return v, err
	case starlark.Int:
		if x.Sign() < 0 {
			return starlark.MakeInt(0).Sub(x), nil
		}
		return x, nil
	case starlark.Bool:
		return boolInt(x), nil
	case starlark.Float:
		return starlark.Float(math.Abs(float64(x))), nil
	}
	return nil, Errorf("TypeError", "bad operand type for abs(): '%s'", TypeName(x))
}

func pyAll(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("all", args, kwargs)
	if err != nil {
		return nil, err
	}
	result := starlark.True
	err = forEach(th, x, func(v starlark.Value) error {
		if !v.Truth() {
			result = starlark.False
			return errStop
		}
		return nil
	})
	if err == errStop {
		err = nil
	}
	return result, err
}

func pyAny(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("any", args, kwargs)
	if err != nil {
		return nil, err
	}
	result := starlark.False
	err = forEach(th, x, func(v starlark.Value) error {
		if v.Truth() {
			result = starlark.True
			return errStop
		}
		return nil
	})
	if err == errStop {
		err = nil
	}
	return result, err
}

// errStop ends a forEach early without an error.
var errStop = &Error{Type: "StopIteration"}

func pyASCII(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("ascii", args, kwargs)
	if err != nil {
		return nil, err
	}
	s, err := ReprValue(th, x)
	return starlark.String(asciiRepr(s)), err
}

func intPrefixed(name, prefix string, base int) builtinFn {
	return func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		x, err := oneArg(name, args, kwargs)
		if err != nil {
			return nil, err
		}
		switch x.(type) {
		case starlark.Int, starlark.Bool:
		default:
			return nil, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", TypeName(x))
		}
		n := intOf(x)
		if n.Sign() < 0 {
			return starlark.String("-" + prefix + new(big.Int).Neg(n).Text(base)), nil
		}
		return starlark.String(prefix + n.Text(base)), nil
	}
}

var (
	pyBin = intPrefixed("bin", "0b", 2)
	pyOct = intPrefixed("oct", "0o", 8)
	pyHex = intPrefixed("hex", "0x", 16)
)

func pyCallable(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("callable", args, kwargs)
	if err != nil {
		return nil, err
	}
	_, ok := x.(starlark.Callable)
	return starlark.Bool(ok), nil
}

func pyChr(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("chr", args, kwargs)
	if err != nil {
		return nil, err
	}
	i, err := toInt(x)
	if err != nil {
		return nil, err
	}
	if i < 0 || i > 0x10ffff {
		return nil, Errorf("ValueError", "chr() arg not in range(0x110000)")
	}
	return starlark.String(string(rune(i))), nil
}

func pyOrd(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("ord", args, kwargs)
	if err != nil {
		return nil, err
	}
	switch s := x.(type) {
	case starlark.String:
		if n := utf8.RuneCountInString(string(s)); n != 1 {
			return nil, Errorf("TypeError", "ord() expected a character, but string of length %d found", n)
		}
		r, _ := utf8.DecodeRuneInString(string(s))
		return starlark.MakeInt(int(r)), nil
	case starlark.Bytes:
		if len(s) != 1 {
			return nil, Errorf("TypeError", "ord() expected a character, but string of length %d found", len(s))
		}
		return starlark.MakeInt(int(s[0])), nil
	}
	return nil, Errorf("TypeError", "ord() expected string of length 1, but %s found", TypeName(x))
}

func pyDir(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
		table = listMethods
	case *starlark.Dict:
		table = dictMethods
	case *starlark.Set:
		table = setMethods
	case starlark.Tuple:
		table = tupleMethods
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

func pyDivmod(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var a, b starlark.Value
	if err := starlark.UnpackPositionalArgs("divmod", args, kwargs, 2, &a, &b); err != nil {
		return nil, err
	}
	if r, ok, err := numberDivmod(a, b); ok {
		return r, err
	}
	a, b = numArg(a), numArg(b)
	if !isNumber(a) || !isNumber(b) {
		return nil, Errorf("TypeError", "unsupported operand type(s) for divmod(): '%s' and '%s'", TypeName(a), TypeName(b))
	}
	if zero(b) {
		if _, ok := a.(starlark.Float); ok {
			return nil, Errorf("ZeroDivisionError", "float divmod()")
		}
		if _, ok := b.(starlark.Float); ok {
			return nil, Errorf("ZeroDivisionError", "float divmod()")
		}
		return nil, Errorf("ZeroDivisionError", "integer division or modulo by zero")
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

func numArg(v starlark.Value) starlark.Value {
	if b, ok := v.(starlark.Bool); ok {
		return boolInt(b)
	}
	return v
}

func zero(v starlark.Value) bool {
	switch x := v.(type) {
	case starlark.Int:
		return x.Sign() == 0
	case starlark.Float:
		return x == 0
	}
	return false
}

func pyEnumerate(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	start := 0
	if err := starlark.UnpackArgs("enumerate", args, kwargs, "iterable", &it, "start?", &start); err != nil {
		return nil, err
	}
	src, err := pyIter(th, it)
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

func pyZip(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	strict := false
	if err := starlark.UnpackArgs("zip", nil, kwargs, "strict?", &strict); err != nil {
		return nil, err
	}
	srcs := make([]*Iterator, len(args))
	for i, a := range args {
		it, err := pyIter(th, a)
		if err != nil {
			if _, ok := a.(starlark.Iterable); ok {
				return nil, err // raised while iterating a user iterable
			}
			return nil, Errorf("TypeError", "zip argument #%d must support iteration", i+1)
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
					return nil, false, Errorf("ValueError", "zip() argument %d is shorter than argument 1", i+1)
				}
				return nil, false, nil
			}
			t[i] = v
		}
		return t, true, nil
	}), nil
}

// pyMap computes its results eagerly: go.starlark.net's for loops cannot
// receive an error from an iterator, so a lazy map whose function raised
// would end the loop silently. The result is still a one-shot iterator.
func pyMap(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 2 || len(kwargs) > 0 {
		return nil, Errorf("TypeError", "map() must have at least two arguments.")
	}
	f := args[0]
	srcs := make([]*Iterator, len(args)-1)
	for i, a := range args[1:] {
		it, err := pyIter(th, a)
		if err != nil {
			return nil, err
		}
		srcs[i] = it
	}
	// The results are new values (str(i), tuples): each is charged with
	// its slot (gather).
	out, err := newGather(th, 0)
	if err != nil {
		return nil, err
	}
	for n := 1; ; n++ {
		if n%checkEvery == 0 {
			if err := Interrupted(th); err != nil {
				return nil, err
			}
		}
		fargs := make(starlark.Tuple, len(srcs))
		for i, s := range srcs {
			v, ok, err := s.Next()
			if err != nil {
				return nil, err
			}
			if !ok {
				vals, err := out.done()
				return sliceIterator("map", vals), err
			}
			fargs[i] = v
		}
		r, err := starlark.Call(th, f, fargs, nil)
		if err != nil {
			return nil, err
		}
		if err := out.add(r); err != nil {
			return nil, err
		}
	}
}

// pyFilter is eager for the same reason as pyMap.
func pyFilter(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f, it starlark.Value
	if err := starlark.UnpackPositionalArgs("filter", args, kwargs, 2, &f, &it); err != nil {
		return nil, err
	}
	out, err := newGather(th, 0)
	if err != nil {
		return nil, err
	}
	err = forEach(th, it, func(v starlark.Value) error {
		keep := v.Truth()
		if f != starlark.None {
			r, err := starlark.Call(th, f, starlark.Tuple{v}, nil)
			if err != nil {
				return err
			}
			keep = r.Truth()
		}
		if keep {
			return out.add(v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	vals, err := out.done()
	return sliceIterator("filter", vals), err
}

func pyFormat(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	spec := ""
	if err := starlark.UnpackPositionalArgs("format", args, kwargs, 1, &x, &spec); err != nil {
		return nil, err
	}
	s, err := FormatValue(th, x, spec)
	return starlark.String(s), err
}

func pyGetattr(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, dflt starlark.Value
	var name string
	if err := starlark.UnpackPositionalArgs("getattr", args, kwargs, 2, &x, &name, &dflt); err != nil {
		return nil, err
	}
	v, err := safeGetAttr(th, x, name)
	if err != nil && dflt != nil {
		if e, ok := err.(*Error); ok && e.Type == "AttributeError" && !strings.HasPrefix(name, "__") {
			return dflt, nil
		}
	}
	return v, err
}

func pyHasattr(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	var name string
	if err := starlark.UnpackPositionalArgs("hasattr", args, kwargs, 2, &x, &name); err != nil {
		return nil, err
	}
	if strings.HasPrefix(name, "__") {
		return nil, Errorf("AttributeError", "access to attribute '%s' is not allowed", name)
	}
	_, err := getAttr(th, x, name)
	return starlark.Bool(err == nil), nil
}

func pySetattr(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, v starlark.Value
	var name string
	if err := starlark.UnpackPositionalArgs("setattr", args, kwargs, 3, &x, &name, &v); err != nil {
		return nil, err
	}
	if strings.HasPrefix(name, "__") {
		return nil, Errorf("AttributeError", "access to attribute '%s' is not allowed", name)
	}
	if s, ok := x.(starlark.HasSetField); ok {
		return starlark.None, s.SetField(name, v)
	}
	return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", TypeName(x), name)
}

func pyHash(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
		return boolInt(v), nil
	case starlark.Float:
		if f := float64(v); f == math.Trunc(f) && !math.IsInf(f, 0) {
			n, _ := big.NewFloat(f).Int(nil)
			return pyHash(th, fn, starlark.Tuple{starlark.MakeBigInt(n)}, nil)
		}
		if h, ok := pyNumberHash(v); ok {
			return starlark.MakeInt64(h), nil
		}
	case pyNumber:
		if h, ok := pyNumberHash(v); ok {
			return starlark.MakeInt64(h), nil
		}
	}
	h, err := x.Hash()
	if err != nil {
		return nil, Errorf("TypeError", "unhashable type: '%s'", TypeName(x))
	}
	return starlark.MakeInt64(int64(h)), nil
}

func pyIsinstance(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, t starlark.Value
	if err := starlark.UnpackPositionalArgs("isinstance", args, kwargs, 2, &x, &t); err != nil {
		return nil, err
	}
	ok, err := isInstance(x, t)
	return starlark.Bool(ok), err
}

func pyIssubclass(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var c, t starlark.Value
	if err := starlark.UnpackPositionalArgs("issubclass", args, kwargs, 2, &c, &t); err != nil {
		return nil, err
	}
	ok, err := isSubclass(c, t)
	return starlark.Bool(ok), err
}

func pyIterFn(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("iter", args, kwargs)
	if err != nil {
		return nil, err
	}
	return pyIter(th, x)
}

func pyNext(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
			return nil, &Error{Type: "StopIteration"}
		}
		return nil, Errorf("TypeError", "'%s' object is not an iterator", TypeName(x))
	}
	v, ok, err := it.NextOn(th)
	if err != nil {
		return nil, err
	}
	if !ok {
		if dflt != nil {
			return dflt, nil
		}
		return nil, &Error{Type: "StopIteration"}
	}
	return v, nil
}

func pyLenFn(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("len", args, kwargs)
	if err != nil {
		return nil, err
	}
	if s, ok := x.(starlark.String); ok {
		return starlark.MakeInt(pyLen(string(s))), nil
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
	return nil, Errorf("TypeError", "object of type '%s' has no len()", TypeName(x))
}

func minmax(name string, wantMax bool) builtinFn {
	return func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var key, dflt starlark.Value
		if err := starlark.UnpackArgs(name, nil, kwargs, "key?", &key, "default?", &dflt); err != nil {
			return nil, err
		}
		if len(args) == 0 {
			return nil, Errorf("TypeError", "%s expected at least 1 argument, got 0", name)
		}
		var src starlark.Value = args
		if len(args) == 1 {
			src = args[0]
		} else if dflt != nil {
			return nil, Errorf("TypeError", "Cannot specify a default for %s() with multiple positional arguments", name)
		}
		var best, bestKey starlark.Value
		err := forEach(th, src, func(v starlark.Value) error {
			k := v
			if key != nil && key != starlark.None {
				var err error
				if k, err = starlark.Call(th, key, starlark.Tuple{v}, nil); err != nil {
					return err
				}
			}
			if best == nil {
				best, bestKey = v, k
				return nil
			}
			var better bool
			var err error
			if wantMax {
				better, err = less(bestKey, k)
			} else {
				better, err = less(k, bestKey)
			}
			if better {
				best, bestKey = v, k
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if best == nil {
			if dflt != nil {
				return dflt, nil
			}
			return nil, Errorf("ValueError", "%s() arg is an empty sequence", name)
		}
		return best, nil
	}
}

var (
	pyMax = minmax("max", true)
	pyMin = minmax("min", false)
)

func pyPowFn(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var a, b, m starlark.Value
	if err := starlark.UnpackArgs("pow", args, kwargs, "base", &a, "exp", &b, "mod?", &m); err != nil {
		return nil, err
	}
	if m == nil || m == starlark.None {
		return pow(th, a, b)
	}
	for _, v := range []starlark.Value{a, b, m} {
		switch v.(type) {
		case starlark.Int, starlark.Bool:
		default:
			return nil, Errorf("TypeError", "pow() 3rd argument not allowed unless all arguments are integers")
		}
	}
	x, y, mod := intOf(a), intOf(b), intOf(m)
	if mod.Sign() == 0 {
		return nil, Errorf("ValueError", "pow() 3rd argument cannot be 0")
	}
	if y.Sign() < 0 {
		// The inverse is an extended gcd, quadratic and uninterruptible.
		if mod.BitLen() > maxGCDBits {
			return nil, Errorf("MemoryError", "pow() with a negative exponent and a modulus of %d bits is too slow to run here (the limit is %d bits)", mod.BitLen(), maxGCDBits)
		}
		inv := new(big.Int).ModInverse(new(big.Int).Mod(x, new(big.Int).Abs(mod)), new(big.Int).Abs(mod))
		if inv == nil {
			return nil, Errorf("ValueError", "base is not invertible for the given modulus")
		}
		x, y = inv, new(big.Int).Neg(y)
	}
	r, err := expMod(th, x, y, new(big.Int).Abs(mod))
	if err != nil {
		return nil, err
	}
	if mod.Sign() < 0 && r.Sign() != 0 {
		r.Add(r, mod)
	}
	return starlark.MakeBigInt(r), nil
}

func pyPrint(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var sep, end starlark.Value = starlark.String(" "), starlark.String("\n")
	var file, flush starlark.Value
	if err := starlark.UnpackArgs("print", nil, kwargs, "sep?", &sep, "end?", &end, "file?", &file, "flush?", &flush); err != nil {
		return nil, err
	}
	if file != nil && file != starlark.None {
		return nil, Errorf("TypeError", "print(file=...) is not supported: there are no files")
	}
	seps, ends := " ", "\n"
	if sep != starlark.None {
		s, ok := sep.(starlark.String)
		if !ok {
			return nil, Errorf("TypeError", "sep must be None or a string, not %s", TypeName(sep))
		}
		seps = string(s)
	}
	if end != starlark.None {
		s, ok := end.(starlark.String)
		if !ok {
			return nil, Errorf("TypeError", "end must be None or a string, not %s", TypeName(end))
		}
		ends = string(s)
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
	if w, ok := th.Local(StdoutKey).(io.Writer); ok {
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

func pyRepr(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("repr", args, kwargs)
	if err != nil {
		return nil, err
	}
	s, err := ReprValue(th, x)
	return starlark.String(s), err
}

func pyReversed(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
		vals, err := collect(th, v)
		if err != nil {
			return nil, err
		}
		for i, j := 0, len(vals)-1; i < j; i, j = i+1, j-1 {
			vals[i], vals[j] = vals[j], vals[i]
		}
		return sliceIterator("dict_reversekeyiterator", vals), nil
	}
	return nil, Errorf("TypeError", "'%s' object is not reversible", TypeName(x))
}

func pyRound(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, nd starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs("round", args, kwargs, "number", &x, "ndigits?", &nd); err != nil {
		return nil, err
	}
	x = numArg(x)
	if r, ok := x.(pyRounder); ok {
		return r.pyRound(nd)
	}
	if nd == starlark.None {
		switch v := x.(type) {
		case starlark.Int:
			return v, nil
		case starlark.Float:
			return floatToInt(math.RoundToEven(float64(v)))
		}
		return nil, Errorf("TypeError", "type %s doesn't define __round__ method", TypeName(x))
	}
	n, err := toInt(nd)
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
		p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(n))), nil))
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
	return nil, Errorf("TypeError", "type %s doesn't define __round__ method", TypeName(x))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
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

func floatToInt(f float64) (starlark.Value, error) {
	if math.IsInf(f, 0) {
		return nil, Errorf("OverflowError", "cannot convert float infinity to integer")
	}
	if math.IsNaN(f) {
		return nil, Errorf("ValueError", "cannot convert float NaN to integer")
	}
	if math.Abs(f) < 1<<62 {
		return starlark.MakeInt64(int64(f)), nil
	}
	n, _ := big.NewFloat(f).Int(nil)
	return starlark.MakeBigInt(n), nil
}

func pySorted(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	var key starlark.Value = starlark.None
	reverse := false
	if err := starlark.UnpackArgs("sorted", args, kwargs, "iterable", &it, "key?", &key, "reverse?", &reverse); err != nil {
		return nil, err
	}
	vals, err := collect(th, it)
	if err != nil {
		return nil, err
	}
	if err := sortValues(th, vals, key, reverse); err != nil {
		return nil, err
	}
	return starlark.NewList(vals), nil
}

func pySum(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	var acc starlark.Value = starlark.MakeInt(0)
	if err := starlark.UnpackArgs("sum", args, kwargs, "iterable", &it, "start?", &acc); err != nil {
		return nil, err
	}
	switch acc.(type) {
	case starlark.String:
		return nil, Errorf("TypeError", "sum() can't sum strings [use ''.join(seq) instead]")
	case starlark.Bytes:
		return nil, Errorf("TypeError", "sum() can't sum bytes [use b''.join(seq) instead]")
	}
	acc = numArg(acc)
	err := forEach(th, it, func(v starlark.Value) error {
		// Each addition costs the accumulator's size: once it is more
		// than a machine word (a big int, a list being concatenated, a
		// Fraction), forEach's check every few thousand items is too
		// rare, and the deadline is checked at every item.
		if sumIsCostly(acc) {
			if err := Interrupted(th); err != nil {
				return err
			}
		}
		v = numArg(v)
		if n := starlark.Len(v); n > 0 {
			if err := Alloc(th, int64(n+starlark.Len(acc))*elemSize); err != nil {
				return err
			}
		}
		r, err := starlark.Binary(syntax.PLUS, acc, v)
		if err != nil {
			return Errorf("TypeError", "unsupported operand type(s) for +: '%s' and '%s'", TypeName(acc), TypeName(v))
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
	if err := starlark.UnpackArgs("int", args, kwargs, "x?", &x, "base?", &base); err != nil {
		return nil, err
	}
	if x == nil {
		return starlark.MakeInt(0), nil
	}
	if base != nil {
		b, err := toInt(base)
		if err != nil {
			return nil, err
		}
		switch s := x.(type) {
		case starlark.String:
			return parseInt(string(s), b)
		case starlark.Bytes:
			return parseInt(string(s), b)
		}
		return nil, Errorf("TypeError", "int() can't convert non-string with explicit base")
	}
	switch v := x.(type) {
	case pyNumber:
		return v.pyInt()
	case starlark.Int:
		return v, nil
	case starlark.Bool:
		return boolInt(v), nil
	case starlark.Float:
		return floatToInt(math.Trunc(float64(v)))
	case starlark.String:
		return parseInt(string(v), 10)
	case starlark.Bytes:
		return parseInt(string(v), 10)
	}
	return nil, Errorf("TypeError", "int() argument must be a string, a bytes-like object or a real number, not '%s'", TypeName(x))
}

// maxIntDigits is CPython 3.11's limit on int/str conversion, which also
// bounds the cost of parsing and printing huge numbers.
const maxIntDigits = 4300

func parseInt(s string, base int) (starlark.Value, error) {
	bad := func() error {
		return Errorf("ValueError", "invalid literal for int() with base %d: %s", base, quoteString(s))
	}
	if base != 0 && (base < 2 || base > 36) {
		return nil, Errorf("ValueError", "int() base must be >= 2 and <= 36, or 0")
	}
	t := strings.TrimFunc(s, isPySpace)
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
			if strings.HasPrefix(t, "_") {
				t = t[1:]
			}
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
	if b&(b-1) != 0 && len(t) > maxIntDigits {
		// CPython limits every base but the powers of two.
		return nil, errStrToInt(len(t))
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

func newFloat(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value = starlark.Float(0)
	if err := starlark.UnpackPositionalArgs("float", args, kwargs, 0, &x); err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case starlark.Float:
		return v, nil
	case starlark.Bool:
		if v {
			return starlark.Float(1), nil
		}
		return starlark.Float(0), nil
	case starlark.Int:
		f := v.Float()
		if math.IsInf(float64(f), 0) {
			return nil, Errorf("OverflowError", "int too large to convert to float")
		}
		return f, nil
	case starlark.String:
		return parseFloat(string(v))
	case pyNumber:
		f, err := v.pyFloat()
		return starlark.Float(f), err
	}
	return nil, Errorf("TypeError", "float() argument must be a string or a real number, not '%s'", TypeName(x))
}

func parseFloat(s string) (starlark.Value, error) {
	t := strings.TrimFunc(s, isPySpace)
	bad := Errorf("ValueError", "could not convert string to float: %s", quoteString(s))
	l := strings.ToLower(t)
	switch strings.TrimLeft(l, "+-") {
	case "inf", "infinity":
		if strings.HasPrefix(l, "-") {
			return starlark.Float(math.Inf(-1)), nil
		}
		return starlark.Float(math.Inf(1)), nil
	case "nan":
		return starlark.Float(math.NaN()), nil
	}
	if t == "" || strings.ContainsAny(l, "xpi_ ") && !validUnderscores(l) {
		return nil, bad
	}
	if strings.ContainsAny(l, "xpin") {
		return nil, bad
	}
	t = strings.ReplaceAll(t, "_", "")
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return starlark.Float(f), nil
		}
		return nil, bad
	}
	return starlark.Float(f), nil
}

// validUnderscores reports whether every '_' in s sits between digits.
func validUnderscores(s string) bool {
	if strings.ContainsAny(s, "xpi ") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '_' {
			if i == 0 || i == len(s)-1 || !isDigit(s[i-1]) || !isDigit(s[i+1]) {
				return false
			}
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

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
			return nil, Errorf("TypeError", "decoding to str: need a bytes-like object, %s found", TypeName(x))
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
			return nil, Errorf("TypeError", "string argument without an encoding")
		}
		return encodeString(string(v), enc, errs)
	case starlark.Int:
		n, err := toInt(v)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, Errorf("ValueError", "negative count")
		}
		if err := Alloc(th, int64(n)); err != nil {
			return nil, err
		}
		return starlark.Bytes(make([]byte, n)), nil
	}
	vals, err := collect(th, x)
	if err != nil {
		return nil, err
	}
	b := make([]byte, len(vals))
	for i, v := range vals {
		n, err := toInt(v)
		if err != nil || n < 0 || n > 255 {
			return nil, Errorf("ValueError", "bytes must be in range(0, 256)")
		}
		b[i] = byte(n)
	}
	return starlark.Bytes(b), nil
}

func newDict(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) > 1 {
		return nil, Errorf("TypeError", "dict expected at most 1 argument, got %d", len(args))
	}
	d := starlark.NewDict(len(kwargs))
	if len(args) == 1 {
		if err := dictUpdate(th, d, args[0]); err != nil {
			return nil, err
		}
	}
	for _, kv := range kwargs {
		if err := d.SetKey(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// dictUpdateMethod is dict.update, charging each new entry (the
// go.starlark.net method it replaces charges nothing).
func dictUpdateMethod(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) > 1 {
		return nil, Errorf("TypeError", "update expected at most 1 argument, got %d", len(args))
	}
	d := fn.Receiver().(*starlark.Dict)
	if len(args) == 1 {
		if err := dictUpdate(th, d, args[0]); err != nil {
			return nil, err
		}
	}
	c := charger{th: th}
	for _, kv := range kwargs {
		n := d.Len()
		if err := d.SetKey(kv[0], kv[1]); err != nil {
			return nil, err
		}
		if d.Len() > n {
			if err := c.entry(kv[0], kv[1]); err != nil {
				return nil, err
			}
		}
	}
	return starlark.None, c.flush()
}

func dictUpdate(th *starlark.Thread, d *starlark.Dict, src starlark.Value) error {
	if m, ok := src.(starlark.IterableMapping); ok {
		if err := Alloc(th, int64(starlark.Len(src))*DictEntrySize); err != nil {
			return err
		}
		for k, v := range starlark.Entries(m) {
			if err := d.SetKey(k, v); err != nil {
				return err
			}
		}
		return nil
	}
	i := 0
	c := charger{th: th}
	err := forEach(th, src, func(item starlark.Value) error {
		var pair []starlark.Value
		switch p := item.(type) {
		case starlark.Tuple:
			pair = p // zip's and items()'s pairs, without a copy
		case *starlark.List:
			if pair = make([]starlark.Value, p.Len()); p.Len() == 2 {
				pair[0], pair[1] = p.Index(0), p.Index(1)
			}
		default:
			var err error
			if pair, err = collect(th, item); err != nil {
				if _, ok := err.(*Interrupt); ok || isMemoryError(err) {
					return err
				}
				return Errorf("TypeError", "cannot convert dictionary update sequence element #%d to a sequence", i)
			}
		}
		if len(pair) != 2 {
			return Errorf("ValueError", "dictionary update sequence element #%d has length %d; 2 is required", i, len(pair))
		}
		i++
		n := d.Len()
		if err := d.SetKey(pair[0], pair[1]); err != nil {
			return unhashable(pair[0], err)
		}
		if d.Len() > n {
			return c.entry(pair[0], pair[1])
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.flush()
}
