package builtins

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Python methods of list, tuple, dict, set, int, float and bytes, and the
// dispatch of __sa_attr.

type builtinFn = func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

var (
	listMethods  = map[string]*starlark.Builtin{}
	tupleMethods = map[string]*starlark.Builtin{}
	dictMethods  = map[string]*starlark.Builtin{}
	setMethods   = map[string]*starlark.Builtin{}
	intMethods   = map[string]*starlark.Builtin{}
	floatMethods = map[string]*starlark.Builtin{}
	bytesMethods = map[string]*starlark.Builtin{}
)

func def(table map[string]*starlark.Builtin, name string, f builtinFn) {
	table[name] = starlark.NewBuiltin(name, f)
}

// starlarkMethod calls go.starlark.net's own method name on recv, for the
// mutations whose checks (frozen value, iteration in progress) it owns.
func starlarkMethod(th *starlark.Thread, recv starlark.HasAttrs, name string, args ...starlark.Value) (starlark.Value, error) {
	m, err := recv.Attr(name)
	if err != nil {
		return nil, err
	}
	return starlark.Call(th, m, args, nil)
}

// getAttr reads attribute name of x with Python semantics: the methods
// above for built-in values, ordinary attributes otherwise.
func getAttr(th *starlark.Thread, x starlark.Value, name string) (starlark.Value, error) {
	if v, ok := specialAttr(x, name); ok {
		return v, nil
	}
	var table map[string]*starlark.Builtin
	switch v := x.(type) {
	case starlark.String:
		table = strMethods
	case *starlark.List:
		table = listMethods
	case starlark.Tuple:
		table = tupleMethods
	case *starlark.Dict:
		table = dictMethods
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
	return Errorf("AttributeError", "'%s' object has no attribute '%s'", TypeName(x), name)
}

// safeGetAttr is getattr as user code may call it: names with a leading
// double underscore are refused, so no reflective path exists.
func safeGetAttr(th *starlark.Thread, x starlark.Value, name string) (starlark.Value, error) {
	if strings.HasPrefix(name, "__") || strings.HasPrefix(name, "_sa") {
		return nil, Errorf("AttributeError", "access to attribute '%s' is not allowed", name)
	}
	return getAttr(th, x, name)
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

// equal is Python ==, with bool equal to the ints 0 and 1.
func equal(x, y starlark.Value) (bool, error) {
	x, y = unbool(x, y)
	return starlark.Equal(x, y)
}

// unbool turns a bool compared with a number into that number, as Python
// treats bool as a subclass of int.
func unbool(x, y starlark.Value) (starlark.Value, starlark.Value) {
	xb, xok := x.(starlark.Bool)
	yb, yok := y.(starlark.Bool)
	if xok == yok {
		return x, y
	}
	if xok && isNumber(y) {
		x = boolInt(xb)
	}
	if yok && isNumber(x) {
		y = boolInt(yb)
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

func boolInt(b starlark.Bool) starlark.Int {
	if b {
		return starlark.MakeInt(1)
	}
	return starlark.MakeInt(0)
}

// less is Python's x < y with Python's error message.
func less(x, y starlark.Value) (bool, error) {
	x, y = baseOperands(x, y)
	x, y = unbool(x, y)
	if xb, ok := x.(starlark.Bool); ok {
		if yb, ok := y.(starlark.Bool); ok {
			return !bool(xb) && bool(yb), nil
		}
	}
	ok, err := starlark.Compare(syntax.LT, x, y)
	if err != nil {
		if _, isErr := err.(*Error); isErr {
			return false, err
		}
		return false, Errorf("TypeError", "'<' not supported between instances of '%s' and '%s'", TypeName(x), TypeName(y))
	}
	return ok, nil
}

// defineMethods fills the method tables; bytes reuses str's, so it runs
// after defineStrMethods (see the init in runtime.go).
func defineMethods() {
	// list
	def(listMethods, "append", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var v starlark.Value
		if err := starlark.UnpackPositionalArgs("append", args, kwargs, 1, &v); err != nil {
			return nil, err
		}
		l := fn.Receiver().(*starlark.List)
		if l.Len()%1024 == 1023 {
			if err := Alloc(th, 1024*elemSize); err != nil {
				return nil, err
			}
		}
		return starlark.None, l.Append(v)
	})
	def(listMethods, "clear", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs("clear", args, kwargs, 0); err != nil {
			return nil, err
		}
		return starlark.None, fn.Receiver().(*starlark.List).Clear()
	})
	def(listMethods, "copy", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs("copy", args, kwargs, 0); err != nil {
			return nil, err
		}
		vals, err := collect(th, fn.Receiver())
		if err != nil {
			return nil, err
		}
		return starlark.NewList(vals), nil
	})
	count := func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value
		if err := starlark.UnpackPositionalArgs("count", args, kwargs, 1, &x); err != nil {
			return nil, err
		}
		n := 0
		err := forEach(th, fn.Receiver(), func(e starlark.Value) error {
			eq, err := equal(e, x)
			if eq {
				n++
			}
			return err
		})
		return starlark.MakeInt(n), err
	}
	index := func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x, start, end starlark.Value
		if err := starlark.UnpackPositionalArgs("index", args, kwargs, 1, &x, &start, &end); err != nil {
			return nil, err
		}
		seq := fn.Receiver().(starlark.Indexable)
		n := seq.Len()
		lo, err := indexArg(start, n, 0)
		if err != nil {
			return nil, err
		}
		hi, err := indexArg(end, n, n)
		if err != nil {
			return nil, err
		}
		for i := lo; i < hi && i < seq.Len(); i++ {
			if i%checkEvery == checkEvery-1 {
				if err := Interrupted(th); err != nil {
					return nil, err
				}
			}
			if eq, err := equal(seq.Index(i), x); err != nil || eq {
				return starlark.MakeInt(i), err
			}
		}
		if _, ok := seq.(starlark.Tuple); ok {
			return nil, Errorf("ValueError", "tuple.index(x): x not in tuple")
		}
		r, _ := ReprValue(th, x)
		return nil, Errorf("ValueError", "%s is not in list", r)
	}
	def(listMethods, "count", count)
	def(listMethods, "index", index)
	def(tupleMethods, "count", count)
	def(tupleMethods, "index", index)
	def(listMethods, "extend", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var it starlark.Value
		if err := starlark.UnpackPositionalArgs("extend", args, kwargs, 1, &it); err != nil {
			return nil, err
		}
		vals, err := collect(th, it)
		if err != nil {
			return nil, err
		}
		l := fn.Receiver().(*starlark.List)
		for _, v := range vals {
			if err := l.Append(v); err != nil {
				return nil, err
			}
		}
		return starlark.None, nil
	})
	def(listMethods, "insert", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var i int
		var v starlark.Value
		if err := starlark.UnpackPositionalArgs("insert", args, kwargs, 2, &i, &v); err != nil {
			return nil, err
		}
		return starlarkMethod(th, fn.Receiver().(*starlark.List), "insert", starlark.MakeInt(i), v)
	})
	def(listMethods, "pop", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		i := -1
		if err := starlark.UnpackPositionalArgs("pop", args, kwargs, 0, &i); err != nil {
			return nil, err
		}
		l := fn.Receiver().(*starlark.List)
		if l.Len() == 0 {
			return nil, Errorf("IndexError", "pop from empty list")
		}
		if i < -l.Len() || i >= l.Len() {
			return nil, Errorf("IndexError", "pop index out of range")
		}
		return starlarkMethod(th, l, "pop", starlark.MakeInt(i))
	})
	def(listMethods, "remove", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value
		if err := starlark.UnpackPositionalArgs("remove", args, kwargs, 1, &x); err != nil {
			return nil, err
		}
		l := fn.Receiver().(*starlark.List)
		for i := 0; i < l.Len(); i++ {
			if i%checkEvery == checkEvery-1 {
				if err := Interrupted(th); err != nil {
					return nil, err
				}
			}
			if eq, err := equal(l.Index(i), x); err != nil {
				return nil, err
			} else if eq {
				_, err := starlarkMethod(th, l, "pop", starlark.MakeInt(i))
				return starlark.None, err
			}
		}
		return nil, Errorf("ValueError", "list.remove(x): x not in list")
	})
	def(listMethods, "reverse", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs("reverse", args, kwargs, 0); err != nil {
			return nil, err
		}
		l := fn.Receiver().(*starlark.List)
		for i, j := 0, l.Len()-1; i < j; i, j = i+1, j-1 {
			a, b := l.Index(i), l.Index(j)
			if err := l.SetIndex(i, b); err != nil {
				return nil, err
			}
			l.SetIndex(j, a)
		}
		return starlark.None, nil
	})
	def(listMethods, "sort", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var key starlark.Value = starlark.None
		reverse := false
		if len(args) > 0 {
			return nil, Errorf("TypeError", "sort() takes no positional arguments")
		}
		if err := starlark.UnpackArgs("sort", args, kwargs, "key?", &key, "reverse?", &reverse); err != nil {
			return nil, err
		}
		l := fn.Receiver().(*starlark.List)
		vals, err := collect(th, l)
		if err != nil {
			return nil, err
		}
		if err := sortValues(th, vals, key, reverse); err != nil {
			return nil, err
		}
		for i, v := range vals {
			if err := l.SetIndex(i, v); err != nil {
				return nil, err
			}
		}
		return starlark.None, nil
	})

	// dict
	def(dictMethods, "update", dictUpdateMethod)
	for _, name := range []string{"get", "setdefault"} {
		name := name
		def(dictMethods, name, func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			m, err := fn.Receiver().(*starlark.Dict).Attr(name)
			if err != nil {
				return nil, err
			}
			return starlark.Call(th, m, args, kwargs)
		})
	}
	def(dictMethods, "clear", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs("clear", args, kwargs, 0); err != nil {
			return nil, err
		}
		return starlark.None, fn.Receiver().(*starlark.Dict).Clear()
	})
	def(dictMethods, "copy", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs("copy", args, kwargs, 0); err != nil {
			return nil, err
		}
		return copyDict(th, fn.Receiver().(*starlark.Dict))
	})
	for _, kind := range []string{"keys", "values", "items"} {
		kind := kind
		def(dictMethods, kind, func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(kind, args, kwargs, 0); err != nil {
				return nil, err
			}
			return &dictView{d: fn.Receiver().(*starlark.Dict), kind: kind}, nil
		})
	}
	def(dictMethods, "pop", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var k, dflt starlark.Value
		if err := starlark.UnpackPositionalArgs("pop", args, kwargs, 1, &k, &dflt); err != nil {
			return nil, err
		}
		v, found, err := fn.Receiver().(*starlark.Dict).Delete(k)
		if err != nil {
			return nil, err
		}
		if !found {
			if dflt != nil {
				return dflt, nil
			}
			r, _ := ReprValue(th, k)
			return nil, Errorf("KeyError", "%s", r)
		}
		return v, nil
	})
	def(dictMethods, "popitem", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs("popitem", args, kwargs, 0); err != nil {
			return nil, err
		}
		d := fn.Receiver().(*starlark.Dict)
		if d.Len() == 0 {
			return nil, Errorf("KeyError", "'popitem(): dictionary is empty'")
		}
		var lastK starlark.Value
		for k := range d.Entries() {
			lastK = k
		}
		v, _, err := d.Delete(lastK)
		if err != nil {
			return nil, err
		}
		return starlark.Tuple{lastK, v}, nil
	})
	typeDict.attrs = map[string]starlark.Value{"fromkeys": starlark.NewBuiltin("fromkeys", dictFromkeys)}
	typeDict.methods = dictMethods

	// set
	def(setMethods, "add", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value
		if err := starlark.UnpackPositionalArgs("add", args, kwargs, 1, &x); err != nil {
			return nil, err
		}
		return starlark.None, fn.Receiver().(*starlark.Set).Insert(x)
	})
	def(setMethods, "clear", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return starlark.None, fn.Receiver().(*starlark.Set).Clear()
	})
	def(setMethods, "copy", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return newSet(th, fn.Receiver())
	})
	def(setMethods, "discard", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value
		if err := starlark.UnpackPositionalArgs("discard", args, kwargs, 1, &x); err != nil {
			return nil, err
		}
		_, err := fn.Receiver().(*starlark.Set).Delete(x)
		return starlark.None, err
	})
	def(setMethods, "remove", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value
		if err := starlark.UnpackPositionalArgs("remove", args, kwargs, 1, &x); err != nil {
			return nil, err
		}
		found, err := fn.Receiver().(*starlark.Set).Delete(x)
		if err == nil && !found {
			r, _ := ReprValue(th, x)
			return nil, Errorf("KeyError", "%s", r)
		}
		return starlark.None, err
	})
	def(setMethods, "pop", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		s := fn.Receiver().(*starlark.Set)
		if s.Len() == 0 {
			return nil, Errorf("KeyError", "'pop from an empty set'")
		}
		// CPython pops from the start of its table (see setOrder).
		first := setElements(s)[0]
		_, err := s.Delete(first)
		return first, err
	})
	setOp := func(name string, update bool, op func(th *starlark.Thread, acc *starlark.Set, other *starlark.Set) (*starlark.Set, error)) {
		def(setMethods, name, func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(kwargs) > 0 {
				return nil, Errorf("TypeError", "set.%s() takes no keyword arguments", name)
			}
			self := fn.Receiver().(*starlark.Set)
			acc := self
			if !update {
				c, err := newSet(th, self)
				if err != nil {
					return nil, err
				}
				acc = c
			}
			for _, a := range args {
				other, err := newSet(th, a)
				if err != nil {
					return nil, err
				}
				if acc, err = op(th, acc, other); err != nil {
					return nil, err
				}
			}
			if update {
				if acc != self {
					if err := self.Clear(); err != nil {
						return nil, err
					}
					for x := range acc.Elements() {
						self.Insert(x)
					}
				}
				return starlark.None, nil
			}
			return acc, nil
		})
	}
	union := func(th *starlark.Thread, acc, other *starlark.Set) (*starlark.Set, error) {
		for x := range other.Elements() {
			if err := acc.Insert(x); err != nil {
				return nil, err
			}
		}
		return acc, nil
	}
	inter := func(th *starlark.Thread, acc, other *starlark.Set) (*starlark.Set, error) {
		out := starlark.NewSet(0)
		for x := range acc.Elements() {
			if ok, _ := other.Has(x); ok {
				out.Insert(x)
			}
		}
		return out, nil
	}
	diff := func(th *starlark.Thread, acc, other *starlark.Set) (*starlark.Set, error) {
		out := starlark.NewSet(0)
		for x := range acc.Elements() {
			if ok, _ := other.Has(x); !ok {
				out.Insert(x)
			}
		}
		return out, nil
	}
	symdiff := func(th *starlark.Thread, acc, other *starlark.Set) (*starlark.Set, error) {
		out, _ := diff(th, acc, other)
		for x := range other.Elements() {
			if ok, _ := acc.Has(x); !ok {
				out.Insert(x)
			}
		}
		return out, nil
	}
	setOp("union", false, union)
	setOp("update", true, union)
	setOp("intersection", false, inter)
	setOp("intersection_update", true, inter)
	setOp("difference", false, diff)
	setOp("difference_update", true, diff)
	setOp("symmetric_difference", false, symdiff)
	setOp("symmetric_difference_update", true, symdiff)
	setPred := func(name string, pred func(self, other *starlark.Set) bool) {
		def(setMethods, name, func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			other, err := newSet(th, x)
			if err != nil {
				return nil, err
			}
			return starlark.Bool(pred(fn.Receiver().(*starlark.Set), other)), nil
		})
	}
	subset := func(a, b *starlark.Set) bool {
		for x := range a.Elements() {
			if ok, _ := b.Has(x); !ok {
				return false
			}
		}
		return true
	}
	setPred("issubset", subset)
	setPred("issuperset", func(a, b *starlark.Set) bool { return subset(b, a) })
	setPred("isdisjoint", func(a, b *starlark.Set) bool {
		for x := range a.Elements() {
			if ok, _ := b.Has(x); ok {
				return false
			}
		}
		return true
	})
	typeSet.methods = setMethods
	typeList.methods = listMethods
	typeTuple.methods = tupleMethods

	// int and float
	def(intMethods, "bit_length", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return starlark.MakeInt(new(big.Int).Abs(intOf(fn.Receiver())).BitLen()), nil
	})
	def(intMethods, "bit_count", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		n := 0
		for _, w := range new(big.Int).Abs(intOf(fn.Receiver())).Bits() {
			for ; w != 0; w &= w - 1 {
				n++
			}
		}
		return starlark.MakeInt(n), nil
	})
	def(intMethods, "conjugate", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return starlark.MakeBigInt(intOf(fn.Receiver())), nil
	})
	def(intMethods, "is_integer", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return starlark.True, nil
	})
	def(intMethods, "as_integer_ratio", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return starlark.Tuple{starlark.MakeBigInt(intOf(fn.Receiver())), starlark.MakeInt(1)}, nil
	})
	def(intMethods, "to_bytes", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		length, order, signed := 1, "big", false
		if err := starlark.UnpackArgs("to_bytes", args, kwargs, "length?", &length, "byteorder?", &order, "signed?", &signed); err != nil {
			return nil, err
		}
		if err := Alloc(th, int64(length)); err != nil {
			return nil, err
		}
		x := intOf(fn.Receiver())
		if x.Sign() < 0 && !signed {
			return nil, Errorf("OverflowError", "can't convert negative int to unsigned")
		}
		v := new(big.Int).Set(x)
		if v.Sign() < 0 {
			v.Add(v, new(big.Int).Lsh(big.NewInt(1), uint(8*length)))
		}
		b := v.Bytes()
		if len(b) > length || (signed && x.Sign() >= 0 && len(b) == length && length > 0 && b[0]&0x80 != 0) {
			return nil, Errorf("OverflowError", "int too big to convert")
		}
		out := make([]byte, length)
		copy(out[length-len(b):], b)
		if order == "little" {
			for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
				out[i], out[j] = out[j], out[i]
			}
		}
		return starlark.Bytes(out), nil
	})
	typeInt.methods = intMethods
	typeInt.attrs = map[string]starlark.Value{"from_bytes": starlark.NewBuiltin("from_bytes", intFromBytes)}
	def(floatMethods, "is_integer", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		f := float64(fn.Receiver().(starlark.Float))
		return starlark.Bool(f == math.Trunc(f) && !math.IsInf(f, 0)), nil
	})
	def(floatMethods, "conjugate", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return fn.Receiver(), nil
	})
	def(floatMethods, "as_integer_ratio", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		f := float64(fn.Receiver().(starlark.Float))
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, Errorf("OverflowError", "cannot convert Infinity to integer ratio")
		}
		r := new(big.Rat).SetFloat64(f)
		return starlark.Tuple{starlark.MakeBigInt(r.Num()), starlark.MakeBigInt(r.Denom())}, nil
	})
	def(floatMethods, "hex", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return starlark.String(floatHex(float64(fn.Receiver().(starlark.Float)))), nil
	})
	typeFloat.methods = floatMethods

	// bytes: decode and hex natively; the text methods reuse str's on the
	// byte string, which is exact for ASCII content.
	def(bytesMethods, "decode", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		enc, errs := "utf-8", "strict"
		if err := starlark.UnpackArgs("decode", args, kwargs, "encoding?", &enc, "errors?", &errs); err != nil {
			return nil, err
		}
		return decodeBytes(string(fn.Receiver().(starlark.Bytes)), enc, errs)
	})
	def(bytesMethods, "hex", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		b := fn.Receiver().(starlark.Bytes)
		if err := Alloc(th, int64(2*len(b))); err != nil {
			return nil, err
		}
		return starlark.String(fmt.Sprintf("%x", string(b))), nil
	})
	for _, name := range []string{"count", "endswith", "find", "index", "isalnum", "isalpha", "isdigit", "islower", "isspace", "isupper", "join", "lower", "lstrip", "partition", "replace", "rfind", "rindex", "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith", "strip", "upper", "title", "capitalize", "swapcase", "zfill", "ljust", "rjust", "center", "removeprefix", "removesuffix"} {
		name := name
		m := strMethods[name]
		def(bytesMethods, name, func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			conv := make(starlark.Tuple, len(args))
			for i, a := range args {
				conv[i] = bytesToStr(a)
			}
			if name == "join" && len(args) == 1 {
				vals, err := collect(th, args[0])
				if err != nil {
					return nil, err
				}
				for i, v := range vals {
					if _, ok := v.(starlark.Bytes); !ok {
						return nil, Errorf("TypeError", "sequence item %d: expected a bytes-like object, %s found", i, TypeName(v))
					}
					vals[i] = bytesToStr(v)
				}
				conv[0] = starlark.NewList(vals)
			}
			r, err := starlark.Call(th, m.BindReceiver(starlark.String(fn.Receiver().(starlark.Bytes))), conv, kwargs)
			if err != nil {
				return nil, err
			}
			return strToBytes(r), nil
		})
	}
	typeBytes.methods = bytesMethods
	typeBytes.attrs = map[string]starlark.Value{"fromhex": starlark.NewBuiltin("fromhex", bytesFromhex)}
}

func bytesToStr(v starlark.Value) starlark.Value {
	switch x := v.(type) {
	case starlark.Bytes:
		return starlark.String(x)
	case starlark.Tuple:
		out := make(starlark.Tuple, len(x))
		for i, e := range x {
			out[i] = bytesToStr(e)
		}
		return out
	}
	return v
}

func strToBytes(v starlark.Value) starlark.Value {
	switch x := v.(type) {
	case starlark.String:
		return starlark.Bytes(x)
	case starlark.Tuple:
		out := make(starlark.Tuple, len(x))
		for i, e := range x {
			out[i] = strToBytes(e)
		}
		return out
	case *starlark.List:
		out := make([]starlark.Value, x.Len())
		for i := range out {
			out[i] = strToBytes(x.Index(i))
		}
		return starlark.NewList(out)
	}
	return v
}

func intOf(v starlark.Value) *big.Int {
	switch x := v.(type) {
	case starlark.Int:
		return x.BigInt()
	case starlark.Bool:
		if x {
			return big.NewInt(1)
		}
	}
	return big.NewInt(0)
}

func floatHex(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return floatRepr(f)
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0x0.0p+0"
		}
		return "0x0.0p+0"
	}
	s := fmt.Sprintf("%x", f) // e.g. 0x1.8p+01
	mant, exp, _ := strings.Cut(s, "p")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	// Python pads the mantissa to 13 hex digits.
	if i := strings.Index(mant, "."); i >= 0 {
		frac := mant[i+1:]
		for len(frac) < 13 {
			frac += "0"
		}
		mant = mant[:i+1] + frac
	}
	sign := exp[:1]
	digits := strings.TrimLeft(exp[1:], "0")
	if digits == "" {
		digits = "0"
	}
	return mant + "p" + sign + digits
}

func decodeBytes(b, enc, errs string) (starlark.Value, error) {
	switch strings.ReplaceAll(strings.ToLower(enc), "_", "-") {
	case "utf-8", "utf8":
		if !strings.ContainsRune(b, 0xfffd) && !validUTF8(b) {
			switch errs {
			case "ignore":
				return starlark.String(strings.ToValidUTF8(b, "")), nil
			case "replace":
				return starlark.String(strings.ToValidUTF8(b, "\ufffd")), nil
			}
			return nil, Errorf("UnicodeDecodeError", "'utf-8' codec can't decode bytes: invalid start byte")
		}
		return starlark.String(b), nil
	case "ascii", "latin-1", "latin1", "iso-8859-1":
		rs := make([]rune, len(b))
		for i := 0; i < len(b); i++ {
			if b[i] > 0x7f && strings.HasPrefix(enc, "ascii") {
				return nil, Errorf("UnicodeDecodeError", "'ascii' codec can't decode byte 0x%02x in position %d: ordinal not in range(128)", b[i], i)
			}
			rs[i] = rune(b[i])
		}
		return starlark.String(string(rs)), nil
	}
	return nil, Errorf("LookupError", "unknown encoding: %s", enc)
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "\x00x") == s }

func bytesFromhex(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	if err := starlark.UnpackPositionalArgs("fromhex", args, kwargs, 1, &s); err != nil {
		return nil, err
	}
	return fromHex(th, s)
}

// fromHex is bytes.fromhex(s) as CPython 3.11 decodes it: pairs of hex
// digits, ASCII whitespace allowed before each pair, errors at the
// code-point position of the first bad character. The result is charged
// to the budget before it is allocated and built in place, so that a
// 200 MB argument costs its 100 MB result and nothing more.
func fromHex(th *starlark.Thread, s string) (starlark.Value, error) {
	if err := Alloc(th, int64(len(s)/2)); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.Grow(len(s) / 2)
	bad := func(at int) error {
		// at is a byte offset; CPython counts code points.
		return Errorf("ValueError", "non-hexadecimal number found in fromhex() arg at position %d", utf8.RuneCountInString(s[:at]))
	}
	for i := 0; i < len(s); {
		if i&(1<<20-1) == 0 && i > 0 {
			if err := Interrupted(th); err != nil {
				return nil, err
			}
		}
		if isHexSpace(s[i]) {
			i++
			continue
		}
		hi, ok := hexDigit(s[i])
		if !ok {
			return nil, bad(i)
		}
		if i+1 >= len(s) {
			return nil, bad(i + 1)
		}
		lo, ok := hexDigit(s[i+1])
		if !ok {
			return nil, bad(i + 1)
		}
		b.WriteByte(hi<<4 | lo)
		i += 2
	}
	return starlark.Bytes(b.String()), nil
}

// isHexSpace is CPython's Py_ISSPACE: ASCII whitespace only.
func isHexSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func intFromBytes(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var b starlark.Value
	order, signed := "big", false
	if err := starlark.UnpackArgs("from_bytes", args, kwargs, "bytes", &b, "byteorder?", &order, "signed?", &signed); err != nil {
		return nil, err
	}
	var raw []byte
	switch x := b.(type) {
	case starlark.Bytes:
		raw = []byte(x)
	default:
		vals, err := collect(th, b)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			n, err := toInt(v)
			if err != nil || n < 0 || n > 255 {
				return nil, Errorf("ValueError", "bytes must be in range(0, 256)")
			}
			raw = append(raw, byte(n))
		}
	}
	if order == "little" {
		raw = append([]byte(nil), raw...)
		for i, j := 0, len(raw)-1; i < j; i, j = i+1, j-1 {
			raw[i], raw[j] = raw[j], raw[i]
		}
	}
	v := new(big.Int).SetBytes(raw)
	if err := checkBuiltIntBits(int64(v.BitLen())); err != nil {
		return nil, err
	}
	if signed && len(raw) > 0 && raw[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(raw))))
	}
	return starlark.MakeBigInt(v), nil
}

func dictFromkeys(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	var v starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs("fromkeys", args, kwargs, 1, &it, &v); err != nil {
		return nil, err
	}
	keys, err := collect(th, it)
	if err != nil {
		return nil, err
	}
	if err := Alloc(th, int64(len(keys))*DictEntrySize); err != nil {
		return nil, err
	}
	d := starlark.NewDict(len(keys))
	for _, k := range keys {
		if err := d.SetKey(k, v); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func copyDict(th *starlark.Thread, d *starlark.Dict) (*starlark.Dict, error) {
	if err := Alloc(th, int64(d.Len())*DictEntrySize); err != nil {
		return nil, err
	}
	out := starlark.NewDict(d.Len())
	for k, v := range d.Entries() {
		out.SetKey(k, v)
	}
	return out, nil
}

// newSet builds a set from any iterable, charging the budget.
func newSet(th *starlark.Thread, it starlark.Value) (*starlark.Set, error) {
	vals, err := collect(th, it)
	if err != nil {
		return nil, err
	}
	if err := Alloc(th, int64(len(vals))*DictEntrySize); err != nil {
		return nil, err
	}
	s := starlark.NewSet(len(vals))
	for _, v := range vals {
		if err := s.Insert(v); err != nil {
			return nil, unhashable(v, err)
		}
	}
	return s, nil
}

func unhashable(v starlark.Value, err error) error {
	if strings.Contains(err.Error(), "unhashable") {
		return Errorf("TypeError", "unhashable type: '%s'", TypeName(v))
	}
	return err
}

// dictView is what dict.keys(), values() and items() return: a live,
// sized, iterable view printed as CPython prints it.
type dictView struct {
	d    *starlark.Dict
	kind string // "keys", "values", "items"
}

var (
	_ starlark.Sequence  = (*dictView)(nil)
	_ starlark.Container = (*dictView)(nil)
	_ starlark.HasBinary = (*dictView)(nil)
	_ Representer        = (*dictView)(nil)
)

func (v *dictView) String() string       { return Repr(v) }
func (v *dictView) Type() string         { return "dict_" + v.kind }
func (v *dictView) Freeze()              { v.d.Freeze() }
func (v *dictView) Truth() starlark.Bool { return v.d.Len() > 0 }
func (v *dictView) Hash() (uint32, error) {
	return 0, Errorf("TypeError", "unhashable type: 'dict_%s'", v.kind)
}
func (v *dictView) Len() int { return v.d.Len() }

// PyType gives each view kind its own type object.
func (v *dictView) PyType() starlark.Value { return iterType("dict_" + v.kind) }

func (v *dictView) Iterate() starlark.Iterator {
	return &viewIter{v: v, keys: v.d.Iterate()}
}

type viewIter struct {
	v    *dictView
	keys starlark.Iterator
}

func (it *viewIter) Next(p *starlark.Value) bool {
	var k starlark.Value
	if !it.keys.Next(&k) {
		return false
	}
	switch it.v.kind {
	case "keys":
		*p = k
	case "values":
		*p, _, _ = it.v.d.Get(k)
	default:
		val, _, _ := it.v.d.Get(k)
		*p = starlark.Tuple{k, val}
	}
	return true
}

func (it *viewIter) Done() { it.keys.Done() }

func (v *dictView) Has(x starlark.Value) (bool, error) {
	switch v.kind {
	case "keys":
		_, found, err := v.d.Get(x)
		return found, err
	case "items":
		t, ok := x.(starlark.Tuple)
		if !ok || len(t) != 2 {
			return false, nil
		}
		val, found, err := v.d.Get(t[0])
		if err != nil || !found {
			return false, err
		}
		return equal(val, t[1])
	}
	for _, e := range v.d.Items() {
		if eq, err := equal(e[1], x); err != nil || eq {
			return eq, err
		}
	}
	return false, nil
}

// Binary gives keys and items views the set operators.
func (v *dictView) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	if v.kind == "values" {
		return nil, nil
	}
	switch op {
	case syntax.AMP, syntax.PIPE, syntax.MINUS, syntax.CIRCUMFLEX:
	default:
		return nil, nil
	}
	a, err := newSet(nil, v)
	if err != nil {
		return nil, err
	}
	b, err := newSet(nil, y)
	if err != nil {
		return nil, err
	}
	if side == starlark.Right {
		a, b = b, a
	}
	return starlark.Binary(op, a, b)
}

func (v *dictView) PyRepr(th *starlark.Thread) (string, error) {
	vals, err := collect(th, v)
	if err != nil {
		return "", err
	}
	s, err := ReprValue(th, starlark.NewList(vals))
	if err != nil {
		return "", err
	}
	return "dict_" + v.kind + "(" + s + ")", nil
}

func (v *dictView) PyStr(th *starlark.Thread) (string, error) { return v.PyRepr(th) }
