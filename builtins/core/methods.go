package core

import (
	"strings"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Python methods of list, tuple, dict, set, int, float and bytes, and the
// dispatch of __sa_attr. Each type's methods are named functions listed in
// a table (methods_list.go, methods_dict.go, methods_set.go,
// methods_number.go, methods_bytes.go), as go.starlark.net's library.go
// lists its own; a function bound under several names reads fn.Name().

type BuiltinFn = func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

var (
	ListMethods  = map[string]*starlark.Builtin{}
	TupleMethods = map[string]*starlark.Builtin{}
	DictMethods  = map[string]*starlark.Builtin{}
	setMethods   = map[string]*starlark.Builtin{}
	intMethods   = map[string]*starlark.Builtin{}
	floatMethods = map[string]*starlark.Builtin{}
	bytesMethods = map[string]*starlark.Builtin{}
)

func def(table map[string]*starlark.Builtin, name string, f BuiltinFn) {
	table[name] = starlark.NewBuiltin(name, f)
}

// StarlarkMethod calls go.starlark.net's own method name on recv, for the
// mutations whose checks (frozen value, iteration in progress) it owns.
func StarlarkMethod(th *starlark.Thread, recv starlark.HasAttrs, name string, args ...starlark.Value) (starlark.Value, error) {
	m, err := recv.Attr(name)
	if err != nil {
		return nil, err
	}
	return starlark.Call(th, m, args, nil)
}

// GetAttr reads attribute name of x with Python semantics: the methods
// above for built-in values, ordinary attributes otherwise.
func GetAttr(th *starlark.Thread, x starlark.Value, name string) (starlark.Value, error) {
	if v, ok := specialAttr(x, name); ok {
		return v, nil
	}
	var table map[string]*starlark.Builtin
	switch v := x.(type) {
	case starlark.String:
		table = strMethods
	case *starlark.List:
		table = ListMethods
	case starlark.Tuple:
		table = TupleMethods
	case *starlark.Dict:
		table = DictMethods
	case *starlark.Set:
		table = setMethods
	case starlark.Bytes:
		table = bytesMethods
	case starlark.Int, starlark.Bool:
		if v, ok := numberAttr(x, name); ok {
			return v, nil
		}
		table = intMethods
	case starlark.Float:
		if v, ok := numberAttr(v, name); ok {
			return v, nil
		}
		table = floatMethods
	}
	if table != nil {
		if m, ok := table[name]; ok {
			return m.BindReceiver(x), nil
		}
		return nil, noAttr(x, name)
	}
	if x.Type() == "range" {
		if v, ok, err := rangeAttr(x, name); ok {
			return v, err
		}
	}
	if h, ok := x.(starlark.HasAttrs); ok {
		v, err := h.Attr(name)
		if err != nil {
			if _, ok := err.(starlark.NoSuchAttrError); ok {
				return nil, noAttr(x, name)
			}
			return nil, err
		}
		if v != nil {
			return v, nil
		}
	}
	return nil, noAttr(x, name)
}

func noAttr(x starlark.Value, name string) error {
	return Errorf(pyexc.AttributeError, "'%s' object has no attribute '%s'", TypeName(x), name)
}

// SafeGetAttr is getattr as user code may call it: names with a leading
// double underscore are refused, so no reflective path exists, but for
// those that only describe a value (contract.ReadableDunder).
func SafeGetAttr(th *starlark.Thread, x starlark.Value, name string) (starlark.Value, error) {
	if (strings.HasPrefix(name, "__") && !contract.ReadableDunder(name)) || strings.HasPrefix(name, "_sa") {
		return nil, Errorf(pyexc.AttributeError, "access to attribute '%s' is not allowed", name)
	}
	return GetAttr(th, x, name)
}

func numberAttr(x starlark.Value, name string) (starlark.Value, bool) {
	if b, ok := x.(starlark.Bool); ok {
		x = starlark.MakeInt(0)
		if b {
			x = starlark.MakeInt(1)
		}
	}
	switch name {
	case "real":
		return x, true
	case "imag":
		if _, ok := x.(starlark.Float); ok {
			return starlark.Float(0), true
		}
		return starlark.MakeInt(0), true
	case "numerator":
		if _, ok := x.(starlark.Int); ok {
			return x, true
		}
	case "denominator":
		if _, ok := x.(starlark.Int); ok {
			return starlark.MakeInt(1), true
		}
	}
	return nil, false
}

// Equal is Python ==, with bool equal to the ints 0 and 1.
func Equal(x, y starlark.Value) (bool, error) {
	x, y = Unbool(x, y)
	return starlark.Equal(x, y)
}

// EqualOn is Equal made on behalf of th, which may be nil: a deep
// comparison fails once th's execution is cancelled (see
// starlark.EqualOn).
func EqualOn(th *starlark.Thread, x, y starlark.Value) (bool, error) {
	x, y = Unbool(x, y)
	return starlark.EqualOn(th, x, y)
}

// Unbool turns a bool compared with a number into that number, as Python
// treats bool as a subclass of int.
func Unbool(x, y starlark.Value) (starlark.Value, starlark.Value) {
	xb, xok := x.(starlark.Bool)
	yb, yok := y.(starlark.Bool)
	if xok == yok {
		return x, y
	}
	if xok && isNumber(y) {
		x = BoolInt(xb)
	}
	if yok && isNumber(x) {
		y = BoolInt(yb)
	}
	return x, y
}

func isNumber(v starlark.Value) bool {
	switch v.(type) {
	case starlark.Int, starlark.Float:
		return true
	}
	return false
}

func BoolInt(b starlark.Bool) starlark.Int {
	if b {
		return starlark.MakeInt(1)
	}
	return starlark.MakeInt(0)
}

// Less is Python's x < y with Python's error message.
func Less(x, y starlark.Value) (bool, error) { return LessOn(nil, x, y) }

// LessOn is Less made on behalf of th, which may be nil: a deep
// comparison fails once th's execution is cancelled.
func LessOn(th *starlark.Thread, x, y starlark.Value) (bool, error) {
	x, y = baseOperands(x, y)
	x, y = Unbool(x, y)
	if xb, ok := x.(starlark.Bool); ok {
		if yb, ok := y.(starlark.Bool); ok {
			return !bool(xb) && bool(yb), nil
		}
	}
	ok, err := starlark.CompareOn(th, syntax.LT, x, y)
	if err != nil {
		return false, orderError(err, syntax.LT, x, y)
	}
	return ok, nil
}

// defineMethods fills the method tables; bytes reuses str's, so it runs
// after defineStrMethods (see the init in helpers_impl.go).
func defineMethods() {
	defAll(ListMethods, listMethodFuncs)
	defAll(TupleMethods, tupleMethodFuncs)
	defAll(DictMethods, dictMethodFuncs)
	defAll(setMethods, setMethodFuncs)
	defAll(intMethods, intMethodFuncs)
	defAll(floatMethods, floatMethodFuncs)
	defAll(bytesMethods, bytesMethodFuncs)
	for _, name := range bytesTextMethods {
		def(bytesMethods, name, bytesViaStr)
	}
	TypeList.methods = ListMethods
	TypeTuple.methods = TupleMethods
	TypeDict.methods = DictMethods
	TypeDict.Attrs = map[string]starlark.Value{"fromkeys": starlark.NewBuiltin("fromkeys", dictFromkeys)}
	TypeSet.methods = setMethods
	TypeInt.methods = intMethods
	TypeInt.Attrs = map[string]starlark.Value{"from_bytes": starlark.NewBuiltin("from_bytes", intFromBytes)}
	TypeFloat.methods = floatMethods
	TypeFloat.Attrs = map[string]starlark.Value{"fromhex": starlark.NewBuiltin("fromhex", floatFromhex)}
	TypeBytes.methods = bytesMethods
	TypeBytes.Attrs = map[string]starlark.Value{"fromhex": starlark.NewBuiltin("fromhex", bytesFromhex), "maketrans": starlark.NewBuiltin("maketrans", bytesMaketrans)}
}

// defAll binds each function of fns in table under its name.
func defAll(table map[string]*starlark.Builtin, fns map[string]BuiltinFn) {
	for name, f := range fns {
		def(table, name, f)
	}
}

func Unhashable(v starlark.Value, err error) error {
	if strings.Contains(err.Error(), "unhashable") {
		return Errorf(pyexc.TypeError, "unhashable type: '%s'", TypeName(v))
	}
	return err
}
