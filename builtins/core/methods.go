package core

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Python methods of list, tuple, dict, set, int, float and bytes, and the
// dispatch of __sa_attr.

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
// double underscore are refused, so no reflective path exists.
func SafeGetAttr(th *starlark.Thread, x starlark.Value, name string) (starlark.Value, error) {
	if strings.HasPrefix(name, "__") || strings.HasPrefix(name, "_sa") {
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
func Less(x, y starlark.Value) (bool, error) {
	x, y = baseOperands(x, y)
	x, y = Unbool(x, y)
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
		return false, Errorf(pyexc.TypeError, "'<' not supported between instances of '%s' and '%s'", TypeName(x), TypeName(y))
	}
	return ok, nil
}

// defineMethods fills the method tables; bytes reuses str's, so it runs
// after defineStrMethods (see the init in runtime.go).
func defineMethods() {
	// list
	def(ListMethods, "append", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var v starlark.Value
		if err := starlark.UnpackPositionalArgs("append", args, kwargs, 1, &v); err != nil {
			return nil, err
		}
		l := fn.Receiver().(*starlark.List)
		if l.Len()%1024 == 1023 {
			if err := Alloc(th, 1024*ElemSize); err != nil {
				return nil, err
			}
		}
		return starlark.None, l.Append(v)
	})
	def(ListMethods, "clear", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs("clear", args, kwargs, 0); err != nil {
			return nil, err
		}
		return starlark.None, fn.Receiver().(*starlark.List).Clear()
	})
	def(ListMethods, "copy", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs("copy", args, kwargs, 0); err != nil {
			return nil, err
		}
		vals, err := Collect(th, fn.Receiver())
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
		err := ForEach(th, fn.Receiver(), func(e starlark.Value) error {
			eq, err := Equal(e, x)
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
		if start == starlark.None || end == starlark.None {
			// list.index and tuple.index take no None bounds, unlike
			// str.index.
			return nil, Errorf(pyexc.TypeError, "slice indices must be integers or have an __index__ method")
		}
		seq := fn.Receiver().(starlark.Indexable)
		n := seq.Len()
		lo, err := IndexArg(start, n, 0)
		if err != nil {
			return nil, err
		}
		hi, err := IndexArg(end, n, n)
		if err != nil {
			return nil, err
		}
		for i := lo; i < hi && i < seq.Len(); i++ {
			if i%CheckEvery == CheckEvery-1 {
				if err := Interrupted(th); err != nil {
					return nil, err
				}
			}
			if eq, err := Equal(seq.Index(i), x); err != nil || eq {
				return starlark.MakeInt(i), err
			}
		}
		if _, ok := seq.(starlark.Tuple); ok {
			return nil, Errorf(pyexc.ValueError, "tuple.index(x): x not in tuple")
		}
		r, _ := ReprValue(th, x)
		return nil, Errorf(pyexc.ValueError, "%s is not in list", r)
	}
	def(ListMethods, "count", count)
	def(ListMethods, "index", index)
	def(TupleMethods, "count", count)
	def(TupleMethods, "index", index)
	def(ListMethods, "extend", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var it starlark.Value
		if err := starlark.UnpackPositionalArgs("extend", args, kwargs, 1, &it); err != nil {
			return nil, err
		}
		vals, err := Collect(th, it)
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
	def(ListMethods, "insert", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var i int
		var v starlark.Value
		if err := starlark.UnpackPositionalArgs("insert", args, kwargs, 2, &i, &v); err != nil {
			return nil, err
		}
		return StarlarkMethod(th, fn.Receiver().(*starlark.List), "insert", starlark.MakeInt(i), v)
	})
	def(ListMethods, "pop", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		i := -1
		if err := starlark.UnpackPositionalArgs("pop", args, kwargs, 0, &i); err != nil {
			return nil, err
		}
		l := fn.Receiver().(*starlark.List)
		if l.Len() == 0 {
			return nil, Errorf(pyexc.IndexError, "pop from empty list")
		}
		if i < -l.Len() || i >= l.Len() {
			return nil, Errorf(pyexc.IndexError, "pop index out of range")
		}
		return StarlarkMethod(th, l, "pop", starlark.MakeInt(i))
	})
	def(ListMethods, "remove", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value
		if err := starlark.UnpackPositionalArgs("remove", args, kwargs, 1, &x); err != nil {
			return nil, err
		}
		l := fn.Receiver().(*starlark.List)
		for i := 0; i < l.Len(); i++ {
			if i%CheckEvery == CheckEvery-1 {
				if err := Interrupted(th); err != nil {
					return nil, err
				}
			}
			if eq, err := Equal(l.Index(i), x); err != nil {
				return nil, err
			} else if eq {
				_, err := StarlarkMethod(th, l, "pop", starlark.MakeInt(i))
				return starlark.None, err
			}
		}
		return nil, Errorf(pyexc.ValueError, "list.remove(x): x not in list")
	})
	def(ListMethods, "reverse", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
	def(ListMethods, "sort", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var key starlark.Value = starlark.None
		if len(args) > 0 {
			return nil, Errorf(pyexc.TypeError, "sort() takes no positional arguments")
		}
		var rev starlark.Value = starlark.False
		if err := starlark.UnpackArgs("sort", args, kwargs, "key?", &key, "reverse?", &rev); err != nil {
			return nil, err
		}
		reverse, err := reverseArg(rev)
		if err != nil {
			return nil, err
		}
		// SortList empties the list while it sorts, as CPython does: a
		// key function that adds to it makes the sort fail.
		return starlark.None, SortList(th, fn.Receiver().(*starlark.List), key, reverse)
	})

	// dict
	def(DictMethods, "update", dictUpdateMethod)
	for _, name := range []string{"get", "setdefault"} {
		name := name
		def(DictMethods, name, func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			m, err := fn.Receiver().(*starlark.Dict).Attr(name)
			if err != nil {
				return nil, err
			}
			return starlark.Call(th, m, args, kwargs)
		})
	}
	def(DictMethods, "clear", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs("clear", args, kwargs, 0); err != nil {
			return nil, err
		}
		return starlark.None, fn.Receiver().(*starlark.Dict).Clear()
	})
	def(DictMethods, "copy", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs("copy", args, kwargs, 0); err != nil {
			return nil, err
		}
		return CopyDict(th, fn.Receiver().(*starlark.Dict))
	})
	for _, kind := range []string{"keys", "values", "items"} {
		kind := kind
		def(DictMethods, kind, func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(kind, args, kwargs, 0); err != nil {
				return nil, err
			}
			return &dictView{d: fn.Receiver().(*starlark.Dict), kind: kind}, nil
		})
	}
	def(DictMethods, "pop", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
			return nil, Errorf(pyexc.KeyError, "%s", r)
		}
		return v, nil
	})
	def(DictMethods, "popitem", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs("popitem", args, kwargs, 0); err != nil {
			return nil, err
		}
		d := fn.Receiver().(*starlark.Dict)
		if d.Len() == 0 {
			return nil, Errorf(pyexc.KeyError, "'popitem(): dictionary is empty'")
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
	TypeDict.Attrs = map[string]starlark.Value{"fromkeys": starlark.NewBuiltin("fromkeys", dictFromkeys)}
	// d.fromkeys(...) is the class method called through an instance: the
	// receiver plays no part.
	def(DictMethods, "fromkeys", dictFromkeys)
	TypeDict.methods = DictMethods

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
			return nil, Errorf(pyexc.KeyError, "%s", r)
		}
		return starlark.None, err
	})
	def(setMethods, "pop", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		s := fn.Receiver().(*starlark.Set)
		if s.Len() == 0 {
			return nil, Errorf(pyexc.KeyError, "'pop from an empty set'")
		}
		// CPython pops from the start of its table (see setOrder).
		first := setElements(s)[0]
		_, err := s.Delete(first)
		return first, err
	})
	setOp := func(name string, update bool, op func(th *starlark.Thread, acc *starlark.Set, other *starlark.Set) (*starlark.Set, error)) {
		def(setMethods, name, func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(kwargs) > 0 {
				return nil, Errorf(pyexc.TypeError, "set.%s() takes no keyword arguments", name)
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
	TypeSet.methods = setMethods
	TypeList.methods = ListMethods
	TypeTuple.methods = TupleMethods

	// int and float
	def(intMethods, "bit_length", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return starlark.MakeInt(new(big.Int).Abs(receiverInt(fn)).BitLen()), nil
	})
	def(intMethods, "bit_count", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		n := 0
		for _, w := range new(big.Int).Abs(receiverInt(fn)).Bits() {
			for ; w != 0; w &= w - 1 {
				n++
			}
		}
		return starlark.MakeInt(n), nil
	})
	def(intMethods, "conjugate", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return starlark.MakeBigInt(receiverInt(fn)), nil
	})
	def(intMethods, "is_integer", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return starlark.True, nil
	})
	def(intMethods, "as_integer_ratio", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return starlark.Tuple{starlark.MakeBigInt(receiverInt(fn)), starlark.MakeInt(1)}, nil
	})
	def(intMethods, "to_bytes", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		length, order, signed := 1, "big", false
		if err := starlark.UnpackArgs("to_bytes", args, kwargs, "length?", &length, "byteorder?", &order, "signed?", &signed); err != nil {
			return nil, err
		}
		if err := Alloc(th, int64(length)); err != nil {
			return nil, err
		}
		x := receiverInt(fn)
		if x.Sign() < 0 && !signed {
			return nil, Errorf(pyexc.OverflowError, "can't convert negative int to unsigned")
		}
		v := new(big.Int).Set(x)
		if v.Sign() < 0 {
			v.Add(v, new(big.Int).Lsh(big.NewInt(1), uint(8*length)))
		}
		b := v.Bytes()
		if len(b) > length || (signed && x.Sign() >= 0 && len(b) == length && length > 0 && b[0]&0x80 != 0) {
			return nil, Errorf(pyexc.OverflowError, "int too big to convert")
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
	TypeInt.methods = intMethods
	TypeInt.Attrs = map[string]starlark.Value{"from_bytes": starlark.NewBuiltin("from_bytes", intFromBytes)}
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
			return nil, Errorf(pyexc.OverflowError, "cannot convert Infinity to integer ratio")
		}
		r := new(big.Rat).SetFloat64(f)
		return starlark.Tuple{starlark.MakeBigInt(r.Num()), starlark.MakeBigInt(r.Denom())}, nil
	})
	def(floatMethods, "hex", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return starlark.String(FloatHex(float64(fn.Receiver().(starlark.Float)))), nil
	})
	TypeFloat.methods = floatMethods
	TypeFloat.Attrs = map[string]starlark.Value{"fromhex": starlark.NewBuiltin("fromhex", floatFromhex)}

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
				b, err := bytesMethodArg(name, i, a)
				if err != nil {
					return nil, err
				}
				conv[i] = bytesToStr(b)
			}
			if name == "join" && len(args) == 1 {
				vals, err := Collect(th, args[0])
				if err != nil {
					return nil, err
				}
				for i, v := range vals {
					if _, ok := v.(starlark.Bytes); !ok {
						return nil, Errorf(pyexc.TypeError, "sequence item %d: expected a bytes-like object, %s found", i, TypeName(v))
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
	TypeBytes.methods = bytesMethods
	TypeBytes.Attrs = map[string]starlark.Value{"fromhex": starlark.NewBuiltin("fromhex", bytesFromhex)}
}

// bytesMethodArg checks argument i of bytes method name: a str is
// refused where CPython wants bytes; find, index and count also take a
// byte value as an int.
func bytesMethodArg(name string, i int, a starlark.Value) (starlark.Value, error) {
	switch x := a.(type) {
	case starlark.String:
		switch {
		case i == 0 && (name == "startswith" || name == "endswith"):
			return nil, Errorf(pyexc.TypeError, "%s first arg must be bytes or a tuple of bytes, not str", name)
		case i == 0 && (name == "find" || name == "rfind" || name == "index" || name == "rindex" || name == "count"):
			return nil, Errorf(pyexc.TypeError, "argument should be integer or bytes-like object, not 'str'")
		case i == 1 && (name == "center" || name == "ljust" || name == "rjust"):
			return nil, Errorf(pyexc.TypeError, "%s() argument 2 must be a byte string of length 1, not str", name)
		}
		return nil, Errorf(pyexc.TypeError, "a bytes-like object is required, not 'str'")
	case starlark.Tuple:
		for _, e := range x {
			if _, ok := e.(starlark.String); ok {
				return nil, Errorf(pyexc.TypeError, "a bytes-like object is required, not 'str'")
			}
		}
	case starlark.Int:
		if i == 0 && (name == "find" || name == "rfind" || name == "index" || name == "rindex" || name == "count") {
			n, ok := x.Int64()
			if !ok || n < 0 || n > 255 {
				return nil, Errorf(pyexc.ValueError, "byte must be in range(0, 256)")
			}
			return starlark.Bytes([]byte{byte(n)}), nil
		}
	}
	return a, nil
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

// receiverInt is the value of an int method's receiver, an int or a
// bool.
func receiverInt(fn *starlark.Builtin) *big.Int {
	n, _ := Int(fn.Receiver())
	return n.BigInt()
}

func FloatHex(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return FloatRepr(f)
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
		if utf8.ValidString(b) {
			return starlark.String(b), nil
		}
		return decodeInvalidUTF8(b, errs)
	case "ascii", "latin-1", "latin1", "iso-8859-1":
		rs := make([]rune, len(b))
		for i := 0; i < len(b); i++ {
			if b[i] > 0x7f && strings.HasPrefix(enc, "ascii") {
				return nil, Errorf(pyexc.UnicodeDecodeError, "'ascii' codec can't decode byte 0x%02x in position %d: ordinal not in range(128)", b[i], i)
			}
			rs[i] = rune(b[i])
		}
		return starlark.String(string(rs)), nil
	}
	return nil, Errorf(pyexc.LookupError, "unknown encoding: %s", enc)
}

// decodeInvalidUTF8 decodes b, which is not valid UTF-8, as CPython's
// decoder does with the error handler errs: each maximal invalid
// sequence (utf8Invalid) is an error, skipped, one U+FFFD or escaped.
func decodeInvalidUTF8(b, errs string) (starlark.Value, error) {
	var out strings.Builder
	out.Grow(len(b))
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRuneInString(b[i:])
		if r != utf8.RuneError || size > 1 {
			out.WriteString(b[i : i+size])
			i += size
			continue
		}
		end, reason := utf8Invalid(b, i)
		switch errs {
		case "strict":
			if end-i == 1 {
				return nil, Errorf(pyexc.UnicodeDecodeError, "'utf-8' codec can't decode byte 0x%02x in position %d: %s", b[i], i, reason)
			}
			return nil, Errorf(pyexc.UnicodeDecodeError, "'utf-8' codec can't decode bytes in position %d-%d: %s", i, end-1, reason)
		case "ignore":
		case "replace":
			out.WriteRune(utf8.RuneError)
		case "backslashreplace":
			for k := i; k < end; k++ {
				fmt.Fprintf(&out, "\\x%02x", b[k])
			}
		default:
			return nil, Errorf(pyexc.LookupError, "unknown error handler name '%s'", errs)
		}
		i = end
	}
	return starlark.String(out.String()), nil
}

// utf8Invalid describes the invalid UTF-8 sequence at b[i]: where it
// ends and CPython's reason. A lead byte followed by fewer valid
// continuation bytes than it needs is one sequence.
func utf8Invalid(b string, i int) (end int, reason string) {
	c := b[i]
	var n int
	lo, hi := byte(0x80), byte(0xbf) // the range of the second byte
	switch {
	case c >= 0xc2 && c <= 0xdf:
		n = 2
	case c >= 0xe0 && c <= 0xef:
		n = 3
		if c == 0xe0 {
			lo = 0xa0
		} else if c == 0xed {
			hi = 0x9f
		}
	case c >= 0xf0 && c <= 0xf4:
		n = 4
		if c == 0xf0 {
			lo = 0x90
		} else if c == 0xf4 {
			hi = 0x8f
		}
	default:
		return i + 1, "invalid start byte"
	}
	for k := 1; k < n; k++ {
		if i+k >= len(b) {
			return i + k, "unexpected end of data"
		}
		d := b[i+k]
		if k == 1 && (d < lo || d > hi) || k > 1 && (d < 0x80 || d > 0xbf) {
			return i + k, "invalid continuation byte"
		}
	}
	return i + n, "invalid continuation byte" // not reached: the sequence is valid
}

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
		return Errorf(pyexc.ValueError, "non-hexadecimal number found in fromhex() arg at position %d", utf8.RuneCountInString(s[:at]))
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
		vals, err := Collect(th, b)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			n, err := IndexInt(v)
			if err != nil || n < 0 || n > 255 {
				return nil, Errorf(pyexc.ValueError, "bytes must be in range(0, 256)")
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
	keys, err := Collect(th, it)
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

func CopyDict(th *starlark.Thread, d *starlark.Dict) (*starlark.Dict, error) {
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
	vals, err := Collect(th, it)
	if err != nil {
		return nil, err
	}
	if err := Alloc(th, int64(len(vals))*DictEntrySize); err != nil {
		return nil, err
	}
	s := starlark.NewSet(len(vals))
	for _, v := range vals {
		if err := s.Insert(v); err != nil {
			return nil, Unhashable(v, err)
		}
	}
	return s, nil
}

func Unhashable(v starlark.Value, err error) error {
	if strings.Contains(err.Error(), "unhashable") {
		return Errorf(pyexc.TypeError, "unhashable type: '%s'", TypeName(v))
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
	return 0, Errorf(pyexc.TypeError, "unhashable type: 'dict_%s'", v.kind)
}
func (v *dictView) Len() int { return v.d.Len() }

// CompareSameType compares two views: keys and items views as sets
// (== and the subset orders), values views by identity, as in CPython.
func (v *dictView) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	w := y.(*dictView)
	if v.kind == "values" || w.kind == "values" {
		switch op {
		case syntax.EQL:
			return v == w, nil
		case syntax.NEQ:
			return v != w, nil
		}
		return false, Errorf(pyexc.TypeError, "'%s' not supported between instances of '%s' and '%s'", op, v.Type(), w.Type())
	}
	a, err := newSet(nil, v)
	if err != nil {
		return false, err
	}
	b, err := newSet(nil, w)
	if err != nil {
		return false, err
	}
	return starlark.CompareDepth(op, a, b, depth)
}

// PyType gives each view kind its own type object.
func (v *dictView) PyType() starlark.Value { return IterType("dict_" + v.kind) }

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
		return Equal(val, t[1])
	}
	for _, e := range v.d.Items() {
		if eq, err := Equal(e[1], x); err != nil || eq {
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
	vals, err := Collect(th, v)
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

// floatFromhex is float.fromhex(s): [sign] [0x] hexdigits [. hexdigits]
// [p exponent], or inf / nan, correctly rounded.
func floatFromhex(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	if err := starlark.UnpackPositionalArgs("fromhex", args, kwargs, 1, &s); err != nil {
		return nil, err
	}
	t := strings.TrimFunc(s, IsPySpace)
	bad := Errorf(pyexc.ValueError, "invalid hexadecimal floating-point string")
	sign := ""
	if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
		sign, t = t[:1], t[1:]
	}
	switch strings.ToLower(t) {
	case "nan":
		return starlark.Float(math.NaN()), nil
	case "inf", "infinity":
		f, _ := strconv.ParseFloat(sign+t, 64)
		return starlark.Float(f), nil
	}
	lower := strings.ToLower(t)
	lower = strings.TrimPrefix(lower, "0x")
	mant, exp, hasExp := strings.Cut(lower, "p")
	if mant == "" || mant == "." || strings.Count(mant, ".") > 1 || strings.Trim(mant, "0123456789abcdef.") != "" {
		return nil, bad
	}
	if hasExp {
		e := strings.TrimLeft(exp, "+-")
		if e == "" || strings.Trim(e, "0123456789") != "" || len(exp)-len(e) > 1 {
			return nil, bad
		}
	} else {
		exp = "0"
	}
	f, err := strconv.ParseFloat(sign+"0x"+mant+"p"+exp, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange && math.IsInf(f, 0) {
			return nil, Errorf(pyexc.OverflowError, "hexadecimal value too large to represent as a float")
		}
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return starlark.Float(f), nil // underflow rounds to zero, as in CPython
		}
		return nil, bad
	}
	return starlark.Float(f), nil
}
