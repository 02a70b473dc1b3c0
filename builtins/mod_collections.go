package builtins

import (
	"fmt"
	"strings"
	"unicode"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// collections: Counter, defaultdict and OrderedDict are dicts with extra
// behaviour (isinstance(c, dict) holds); deque is a list-like with fast
// ends; namedtuple makes tuple types with named fields.

var (
	typeCounter     = &Type{name: "Counter", base: typeDict}
	typeDefaultDict = &Type{name: "collections.defaultdict", base: typeDict}
	typeOrderedDict = &Type{name: "collections.OrderedDict", base: typeDict}
	typeDeque       = &Type{name: "collections.deque", base: typeObject}
)

// dictLike is a Counter, defaultdict or OrderedDict: a dict plus the
// kind's behaviour for missing keys, methods and repr.
type dictLike struct {
	*starlark.Dict
	kind    *Type
	factory starlark.Value   // defaultdict's default_factory
	th      *starlark.Thread // thread that made it, to call factory from Get
}

var (
	_ starlark.IterableMapping = (*dictLike)(nil)
	_ starlark.HasSetKey       = (*dictLike)(nil)
	_ starlark.Container       = (*dictLike)(nil)
	_ starlark.HasAttrs        = (*dictLike)(nil)
	_ Representer              = (*dictLike)(nil)
)

func (d *dictLike) Type() string           { return d.kind.name }
func (d *dictLike) PyType() starlark.Value { return d.kind }
func (d *dictLike) String() string         { return Repr(d) }

// Has is "k in d", which never inserts.
func (d *dictLike) Has(k starlark.Value) (bool, error) {
	_, found, err := d.Dict.Get(k)
	return found, err
}

// Get is d[k]: a Counter answers 0 for a missing key, a defaultdict
// inserts and returns default_factory().
func (d *dictLike) Get(k starlark.Value) (starlark.Value, bool, error) {
	v, found, err := d.Dict.Get(k)
	if err != nil || found {
		return v, found, err
	}
	switch d.kind {
	case typeCounter:
		return starlark.MakeInt(0), true, nil
	case typeDefaultDict:
		if d.factory == nil || d.factory == starlark.None {
			return nil, false, nil
		}
		v, err := starlark.Call(d.th, d.factory, nil, nil)
		if err != nil {
			return nil, false, err
		}
		return v, true, d.Dict.SetKey(k, v)
	}
	return nil, false, nil
}

func (d *dictLike) PyRepr(th *starlark.Thread) (string, error) {
	switch d.kind {
	case typeCounter:
		if d.Len() == 0 {
			return "Counter()", nil
		}
		items, err := counterMostCommon(th, d, -1)
		if err != nil {
			return "", err
		}
		nd := starlark.NewDict(len(items))
		for _, it := range items {
			t := it.(starlark.Tuple)
			nd.SetKey(t[0], t[1])
		}
		s, err := ReprValue(th, nd)
		return "Counter(" + s + ")", err
	case typeDefaultDict:
		f := "None"
		if d.factory != nil && d.factory != starlark.None {
			var err error
			if f, err = ReprValue(th, d.factory); err != nil {
				return "", err
			}
		}
		s, err := ReprValue(th, d.Dict)
		return "defaultdict(" + f + ", " + s + ")", err
	}
	if d.Len() == 0 {
		return "OrderedDict()", nil
	}
	items := make([]starlark.Value, 0, d.Len())
	for _, it := range d.Items() {
		items = append(items, it)
	}
	s, err := ReprValue(th, starlark.NewList(items))
	return "OrderedDict(" + s + ")", err
}

func (d *dictLike) PyStr(th *starlark.Thread) (string, error) { return d.PyRepr(th) }

func (d *dictLike) AttrNames() []string {
	names := []string{"clear", "copy", "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values"}
	switch d.kind {
	case typeCounter:
		names = append(names, "most_common", "elements", "subtract", "total")
	case typeDefaultDict:
		names = append(names, "default_factory")
	case typeOrderedDict:
		names = append(names, "move_to_end")
	}
	return names
}

func (d *dictLike) Attr(name string) (starlark.Value, error) {
	method := func(f builtinFn) (starlark.Value, error) { return fn(name, f), nil }
	switch {
	case name == "default_factory" && d.kind == typeDefaultDict:
		if d.factory == nil {
			return starlark.None, nil
		}
		return d.factory, nil
	case name == "copy":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			c, err := copyDict(th, d.Dict)
			if err != nil {
				return nil, err
			}
			return &dictLike{Dict: c, kind: d.kind, factory: d.factory, th: d.th}, nil
		})
	case d.kind == typeCounter:
		switch name {
		case "most_common":
			return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var n starlark.Value = starlark.None
				if err := starlark.UnpackPositionalArgs("most_common", args, kwargs, 0, &n); err != nil {
					return nil, err
				}
				k := -1
				if n != starlark.None {
					var err error
					if k, err = toInt(n); err != nil {
						return nil, err
					}
				}
				items, err := counterMostCommon(th, d, k)
				if err != nil {
					return nil, err
				}
				return starlark.NewList(items), nil
			})
		case "elements":
			return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var out []starlark.Value
				for k, v := range d.Entries() {
					n, _ := toInt(v)
					if err := Alloc(th, int64(max(n, 0))*elemSize); err != nil {
						return nil, err
					}
					for i := 0; i < n; i++ {
						out = append(out, k)
					}
				}
				return sliceIterator("itertools.chain", out), nil
			})
		case "total":
			return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var acc starlark.Value = starlark.MakeInt(0)
				for _, v := range d.Entries() {
					r, err := starlark.Binary(syntax.PLUS, acc, numArg(v))
					if err != nil {
						return nil, err
					}
					acc = r
				}
				return acc, nil
			})
		case "update", "subtract":
			return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var src starlark.Value = starlark.None
				if err := starlark.UnpackPositionalArgs(name, args, nil, 0, &src); err != nil {
					return nil, err
				}
				sign := 1
				if name == "subtract" {
					sign = -1
				}
				if src != starlark.None {
					if err := counterAdd(th, d, src, sign); err != nil {
						return nil, err
					}
				}
				if len(kwargs) > 0 {
					kw := starlark.NewDict(len(kwargs))
					for _, kv := range kwargs {
						kw.SetKey(kv[0], kv[1])
					}
					return starlark.None, counterAdd(th, d, kw, sign)
				}
				return starlark.None, nil
			})
		}
	case d.kind == typeOrderedDict:
		switch name {
		case "move_to_end":
			return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var k starlark.Value
				last := true
				if err := starlark.UnpackArgs("move_to_end", args, kwargs, "key", &k, "last?", &last); err != nil {
					return nil, err
				}
				v, found, err := d.Dict.Delete(k)
				if err != nil {
					return nil, err
				}
				if !found {
					r, _ := ReprValue(th, k)
					return nil, Errorf("KeyError", "%s", r)
				}
				if last {
					return starlark.None, d.Dict.SetKey(k, v)
				}
				items := d.Items()
				d.Dict.Clear()
				d.Dict.SetKey(k, v)
				for _, it := range items {
					d.Dict.SetKey(it[0], it[1])
				}
				return starlark.None, nil
			})
		case "popitem":
			return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				last := true
				if err := starlark.UnpackArgs("popitem", args, kwargs, "last?", &last); err != nil {
					return nil, err
				}
				items := d.Items()
				if len(items) == 0 {
					return nil, Errorf("KeyError", "'dictionary is empty'")
				}
				it := items[len(items)-1]
				if !last {
					it = items[0]
				}
				d.Dict.Delete(it[0])
				return it, nil
			})
		}
	}
	if m, ok := dictMethods[name]; ok {
		return m.BindReceiver(d.Dict), nil
	}
	return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", d.kind.name, name)
}

// Binary implements Counter arithmetic (+, -, |, &) and dict | dict.
func (d *dictLike) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	other, ok := y.(*dictLike)
	if !ok || d.kind != typeCounter || other.kind != typeCounter {
		if op == syntax.PIPE {
			if yd, ok := asDict(y); ok {
				a, b := d.Dict, yd
				if side == starlark.Right {
					a, b = b, a
				}
				return &dictLike{Dict: a.Union(b), kind: d.kind, factory: d.factory, th: d.th}, nil
			}
		}
		return nil, nil
	}
	a, b := d, other
	if side == starlark.Right {
		a, b = b, a
	}
	out := &dictLike{Dict: starlark.NewDict(a.Len()), kind: typeCounter}
	get := func(c *dictLike, k starlark.Value) starlark.Value {
		v, found, _ := c.Dict.Get(k)
		if !found {
			return starlark.MakeInt(0)
		}
		return numArg(v)
	}
	keys := append(a.Keys(), b.Keys()...)
	for _, k := range keys {
		if ok, _ := out.Has(k); ok {
			continue
		}
		x, z := get(a, k), get(b, k)
		var r starlark.Value
		var err error
		switch op {
		case syntax.PLUS:
			r, err = starlark.Binary(syntax.PLUS, x, z)
		case syntax.MINUS:
			r, err = starlark.Binary(syntax.MINUS, x, z)
		case syntax.PIPE:
			r = x
			if lt, _ := less(x, z); lt {
				r = z
			}
		case syntax.AMP:
			r = x
			if lt, _ := less(z, x); lt {
				r = z
			}
		default:
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if pos, _ := less(starlark.MakeInt(0), r); pos {
			out.Dict.SetKey(k, r)
		}
	}
	return out, nil
}

func asDict(v starlark.Value) (*starlark.Dict, bool) {
	switch x := v.(type) {
	case *starlark.Dict:
		return x, true
	case *dictLike:
		return x.Dict, true
	}
	return nil, false
}

func counterAdd(th *starlark.Thread, d *dictLike, src starlark.Value, sign int) error {
	c := charger{th: th}
	add := func(k, n starlark.Value) error {
		cur, found, err := d.Dict.Get(k)
		if err != nil {
			return unhashable(k, err)
		}
		if !found {
			cur = starlark.MakeInt(0)
			if err := c.entry(k, cur); err != nil {
				return err
			}
		}
		op := syntax.PLUS
		if sign < 0 {
			op = syntax.MINUS
		}
		r, err := starlark.Binary(op, numArg(cur), numArg(n))
		if err != nil {
			return err
		}
		return d.Dict.SetKey(k, r)
	}
	if m, ok := src.(starlark.IterableMapping); ok {
		for k, v := range starlark.Entries(m) {
			if err := add(k, v); err != nil {
				return err
			}
		}
		return c.flush()
	}
	err := forEach(th, src, func(k starlark.Value) error {
		return add(k, starlark.MakeInt(1))
	})
	if err != nil {
		return err
	}
	return c.flush()
}

// counterMostCommon returns (key, count) pairs by count, descending, ties
// in insertion order, as CPython's (stable) sort gives.
func counterMostCommon(th *starlark.Thread, d *dictLike, n int) ([]starlark.Value, error) {
	items := make([]starlark.Value, 0, d.Len())
	for _, it := range d.Items() {
		items = append(items, it)
	}
	key := fn("count", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return numArg(args[0].(starlark.Tuple)[1]), nil
	})
	if err := sortValues(th, items, key, true); err != nil {
		return nil, err
	}
	if n >= 0 && n < len(items) {
		items = items[:n]
	}
	return items, nil
}

// deque is collections.deque.
type deque struct {
	items  []starlark.Value
	maxlen int // -1: unbounded
	frozen bool
	iters  int
}

var (
	_ starlark.Sequence    = (*deque)(nil)
	_ starlark.Indexable   = (*deque)(nil)
	_ starlark.HasSetIndex = (*deque)(nil)
	_ starlark.Container   = (*deque)(nil)
	_ Representer          = (*deque)(nil)
)

func (q *deque) String() string         { return Repr(q) }
func (q *deque) Type() string           { return "collections.deque" }
func (q *deque) PyType() starlark.Value { return typeDeque }
func (q *deque) Freeze()                { q.frozen = true }
func (q *deque) Truth() starlark.Bool   { return len(q.items) > 0 }
func (q *deque) Hash() (uint32, error) {
	return 0, Errorf("TypeError", "unhashable type: 'collections.deque'")
}
func (q *deque) Len() int                   { return len(q.items) }
func (q *deque) Index(i int) starlark.Value { return q.items[i] }
func (q *deque) Iterate() starlark.Iterator {
	return sliceIterator("_collections._deque_iterator", append([]starlark.Value(nil), q.items...)).Iterate()
}
func (q *deque) Has(x starlark.Value) (bool, error) {
	for _, e := range q.items {
		if eq, err := equal(e, x); err != nil || eq {
			return eq, err
		}
	}
	return false, nil
}
func (q *deque) SetIndex(i int, v starlark.Value) error {
	if q.frozen {
		return Errorf("TypeError", "cannot modify a frozen deque")
	}
	q.items[i] = v
	return nil
}

func (q *deque) PyRepr(th *starlark.Thread) (string, error) {
	s, err := ReprValue(th, starlark.NewList(q.items))
	if err != nil {
		return "", err
	}
	if q.maxlen >= 0 {
		return "deque(" + s + ", maxlen=" + starlark.MakeInt(q.maxlen).String() + ")", nil
	}
	return "deque(" + s + ")", nil
}

func (q *deque) PyStr(th *starlark.Thread) (string, error) { return q.PyRepr(th) }

func (q *deque) push(th *starlark.Thread, v starlark.Value, left bool) error {
	if q.frozen {
		return Errorf("TypeError", "cannot modify a frozen deque")
	}
	if q.maxlen == 0 {
		return nil
	}
	if len(q.items)%1024 == 1023 {
		if err := Alloc(th, 1024*elemSize); err != nil {
			return err
		}
	}
	if left {
		q.items = append([]starlark.Value{v}, q.items...)
		if q.maxlen >= 0 && len(q.items) > q.maxlen {
			q.items = q.items[:q.maxlen]
		}
		return nil
	}
	q.items = append(q.items, v)
	if q.maxlen >= 0 && len(q.items) > q.maxlen {
		q.items = q.items[len(q.items)-q.maxlen:]
	}
	return nil
}

func (q *deque) AttrNames() []string {
	return []string{"append", "appendleft", "clear", "copy", "count", "extend", "extendleft", "index", "insert", "maxlen", "pop", "popleft", "remove", "reverse", "rotate"}
}

func (q *deque) Attr(name string) (starlark.Value, error) {
	method := func(f builtinFn) (starlark.Value, error) { return fn(name, f), nil }
	one := func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var v starlark.Value
		err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &v)
		return v, err
	}
	switch name {
	case "maxlen":
		if q.maxlen < 0 {
			return starlark.None, nil
		}
		return starlark.MakeInt(q.maxlen), nil
	case "append", "appendleft":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			v, err := one(args, kwargs)
			if err != nil {
				return nil, err
			}
			return starlark.None, q.push(th, v, name == "appendleft")
		})
	case "extend", "extendleft":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			v, err := one(args, kwargs)
			if err != nil {
				return nil, err
			}
			vals, err := collect(th, v)
			if err != nil {
				return nil, err
			}
			for _, x := range vals {
				if err := q.push(th, x, name == "extendleft"); err != nil {
					return nil, err
				}
			}
			return starlark.None, nil
		})
	case "pop", "popleft":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(q.items) == 0 {
				return nil, Errorf("IndexError", "pop from an empty deque")
			}
			if q.frozen {
				return nil, Errorf("TypeError", "cannot modify a frozen deque")
			}
			if name == "pop" {
				v := q.items[len(q.items)-1]
				q.items = q.items[:len(q.items)-1]
				return v, nil
			}
			v := q.items[0]
			q.items = q.items[1:]
			return v, nil
		})
	case "clear":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			q.items = nil
			return starlark.None, nil
		})
	case "copy":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return &deque{items: append([]starlark.Value(nil), q.items...), maxlen: q.maxlen}, nil
		})
	case "rotate":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			n := 1
			if err := starlark.UnpackPositionalArgs("rotate", args, kwargs, 0, &n); err != nil {
				return nil, err
			}
			if l := len(q.items); l > 0 {
				n = ((n % l) + l) % l
				q.items = append(q.items[l-n:], q.items[:l-n]...)
			}
			return starlark.None, nil
		})
	case "reverse":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			for i, j := 0, len(q.items)-1; i < j; i, j = i+1, j-1 {
				q.items[i], q.items[j] = q.items[j], q.items[i]
			}
			return starlark.None, nil
		})
	case "remove":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			v, err := one(args, kwargs)
			if err != nil {
				return nil, err
			}
			for i, e := range q.items {
				if eq, _ := equal(e, v); eq {
					q.items = append(q.items[:i], q.items[i+1:]...)
					return starlark.None, nil
				}
			}
			return nil, Errorf("ValueError", "deque.remove(x): x not in deque")
		})
	case "insert":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var i int
			var v starlark.Value
			if err := starlark.UnpackPositionalArgs("insert", args, kwargs, 2, &i, &v); err != nil {
				return nil, err
			}
			if q.maxlen >= 0 && len(q.items) >= q.maxlen {
				return nil, Errorf("IndexError", "deque already at its maximum size")
			}
			l := len(q.items)
			if i < 0 {
				i = max(i+l, 0)
			}
			i = min(i, l)
			q.items = append(q.items[:i], append([]starlark.Value{v}, q.items[i:]...)...)
			return starlark.None, nil
		})
	case "count", "index":
		m := listMethods[name]
		return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return starlark.Call(th, m.BindReceiver(starlark.NewList(q.items)), args, kwargs)
		}), nil
	}
	return nil, Errorf("AttributeError", "'collections.deque' object has no attribute '%s'", name)
}

// namedtupleValue is an instance of a namedtuple type: a tuple whose
// items are also attributes.
type namedtupleValue struct {
	starlark.Tuple
	typ    *Type
	fields []string
}

var (
	_ Representer        = (*namedtupleValue)(nil)
	_ starlark.HasBinary = (*namedtupleValue)(nil)
	_ tupleSubclass      = (*namedtupleValue)(nil)
)

// tupleSubclass is implemented by values whose type derives from tuple
// (namedtuples, time.struct_time): == and ordering compare them as the
// plain tuples of their items.
type tupleSubclass interface {
	starlark.Value
	tupleItems() starlark.Tuple
}

// baseOperands gives == and ordering the operands CPython compares for
// values of subclasses of tuple and int: when both are tuples, one of a
// subclass (namedtuple, struct_time), the plain tuples of their items;
// for IntEnum and IntFlag members, their int values; for Fraction and
// Decimal against other numbers, the outcome of the exact comparison.
func baseOperands(x, y starlark.Value) (starlark.Value, starlark.Value) {
	xt, xsub := x.(tupleSubclass)
	yt, ysub := y.(tupleSubclass)
	_, xplain := x.(starlark.Tuple)
	_, yplain := y.(starlark.Tuple)
	if (xsub || xplain) && (ysub || yplain) && (xsub || ysub) {
		if xsub {
			x = xt.tupleItems()
		}
		if ysub {
			y = yt.tupleItems()
		}
		return x, y
	}
	x, y = enumOperand(x), enumOperand(y)
	if nx, ny, ok := numberOperands(x, y); ok {
		return nx, ny
	}
	return x, y
}

func (n *namedtupleValue) tupleItems() starlark.Tuple { return n.Tuple }
func (n *namedtupleValue) Type() string               { return n.typ.name }
func (n *namedtupleValue) PyType() starlark.Value     { return n.typ }
func (n *namedtupleValue) String() string             { return Repr(n) }

func (n *namedtupleValue) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	return compareTupleSubclass(n.Tuple, op, y, depth)
}

// compareTupleSubclass compares the items of a tuple subclass with y,
// which go.starlark.net found to have the same type name.
func compareTupleSubclass(items starlark.Tuple, op syntax.Token, y starlark.Value, depth int) (bool, error) {
	other, ok := y.(tupleSubclass)
	if !ok {
		switch op {
		case syntax.EQL:
			return false, nil
		case syntax.NEQ:
			return true, nil
		}
		return false, Errorf("TypeError", "'%s' not supported between instances of '%s' and '%s'", op, TypeName(items), TypeName(y))
	}
	return items.CompareSameType(op, other.tupleItems(), depth)
}

// tupleBinary is tuple + tuple and tuple * int for a tuple subclass,
// whose results are plain tuples.
func tupleBinary(items starlark.Tuple, op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	switch op {
	case syntax.PLUS:
		var other starlark.Tuple
		switch t := y.(type) {
		case starlark.Tuple:
			other = t
		case tupleSubclass:
			other = t.tupleItems()
		default:
			return nil, nil
		}
		if side == starlark.Left {
			return append(append(starlark.Tuple{}, items...), other...), nil
		}
		return append(append(starlark.Tuple{}, other...), items...), nil
	case syntax.STAR:
		if _, ok := y.(starlark.Int); ok {
			return starlark.Binary(op, items, y)
		}
	}
	return nil, nil
}

func (n *namedtupleValue) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	return tupleBinary(n.Tuple, op, y, side)
}

func (n *namedtupleValue) PyRepr(th *starlark.Thread) (string, error) {
	var b strings.Builder
	b.WriteString(n.typ.name + "(")
	for i, f := range n.fields {
		if i > 0 {
			b.WriteString(", ")
		}
		s, err := ReprValue(th, n.Tuple[i])
		if err != nil {
			return "", err
		}
		b.WriteString(f + "=" + s)
	}
	b.WriteString(")")
	return b.String(), nil
}

func (n *namedtupleValue) PyStr(th *starlark.Thread) (string, error) { return n.PyRepr(th) }

func (n *namedtupleValue) AttrNames() []string {
	return append([]string{"_asdict", "_field_defaults", "_fields", "_make", "_replace", "count", "index"}, n.fields...)
}

func (n *namedtupleValue) Attr(name string) (starlark.Value, error) {
	for i, f := range n.fields {
		if f == name {
			return n.Tuple[i], nil
		}
	}
	switch name {
	case "_fields", "_field_defaults", "_make", "__match_args__":
		return n.typ.attrs[name], nil
	case "_asdict":
		return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
				return nil, err
			}
			d := starlark.NewDict(len(n.fields))
			for i, f := range n.fields {
				d.SetKey(starlark.String(f), n.Tuple[i])
			}
			return d, nil
		}), nil
	case "_replace":
		return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) > 0 {
				return nil, Errorf("TypeError", "%s._replace() takes 1 positional argument but %d were given", n.typ.name, len(args)+1)
			}
			vals := append(starlark.Tuple(nil), n.Tuple...)
			var unknown []starlark.Value
			for _, kv := range kwargs {
				k := string(kv[0].(starlark.String))
				found := false
				for i, f := range n.fields {
					if f == k {
						vals[i], found = kv[1], true
					}
				}
				if !found {
					unknown = append(unknown, kv[0])
				}
			}
			if len(unknown) > 0 {
				return nil, Errorf("ValueError", "Got unexpected field names: %s", Repr(starlark.NewList(unknown)))
			}
			return &namedtupleValue{Tuple: vals, typ: n.typ, fields: n.fields}, nil
		}), nil
	case "count", "index":
		return tupleMethods[name].BindReceiver(n.Tuple), nil
	}
	return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", n.typ.name, name)
}

// pyKeywords are Python 3.11's keyword.kwlist.
var pyKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}

// isPyIdentifier is str.isidentifier (XID_Start/XID_Continue, approximated
// by letters, digits, marks and connector punctuation outside ASCII).
func isPyIdentifier(s string) bool {
	for i, r := range s {
		switch {
		case r == '_' || r < 0x80 && unicode.IsLetter(r):
		case i > 0 && r < 0x80 && unicode.IsDigit(r):
		case r >= 0x80 && (unicode.IsLetter(r) || unicode.Is(unicode.Nl, r)):
		case r >= 0x80 && i > 0 && (unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc)):
		default:
			return false
		}
	}
	return s != ""
}

// argList is CPython's listing of missing argument names: 'a', 'a' and
// 'b', 'a', 'b', and 'c'.
func argList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	switch len(q) {
	case 1:
		return q[0]
	case 2:
		return q[0] + " and " + q[1]
	}
	return strings.Join(q[:len(q)-1], ", ") + ", and " + q[len(q)-1]
}

func namedtuple(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var typename, fieldsV starlark.Value
	var defaults, rename, module starlark.Value = starlark.None, starlark.False, starlark.None
	if err := starlark.UnpackArgs("namedtuple", args, kwargs, "typename", &typename, "field_names", &fieldsV, "rename?", &rename, "defaults?", &defaults, "module?", &module); err != nil {
		return nil, err
	}
	name := Str(typename)
	var fields []string
	if s, ok := fieldsV.(starlark.String); ok {
		fields = strings.Fields(strings.ReplaceAll(string(s), ",", " "))
	} else {
		vals, err := collect(th, fieldsV)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			fields = append(fields, Str(v))
		}
	}
	if rename.Truth() {
		seen := map[string]bool{}
		for i, f := range fields {
			if !isPyIdentifier(f) || pyKeywords[f] || strings.HasPrefix(f, "_") || seen[f] {
				fields[i] = fmt.Sprintf("_%d", i)
			}
			seen[f] = true
		}
	}
	for _, f := range append([]string{name}, fields...) {
		if !isPyIdentifier(f) {
			return nil, Errorf("ValueError", "Type names and field names must be valid identifiers: %s", quoteString(f))
		}
		if pyKeywords[f] {
			return nil, Errorf("ValueError", "Type names and field names cannot be a keyword: %s", quoteString(f))
		}
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if strings.HasPrefix(f, "_") && !bool(rename.Truth()) {
			return nil, Errorf("ValueError", "Field names cannot start with an underscore: %s", quoteString(f))
		}
		if seen[f] {
			return nil, Errorf("ValueError", "Encountered duplicate field name: %s", quoteString(f))
		}
		seen[f] = true
	}
	var dflts []starlark.Value
	if defaults != starlark.None {
		var err error
		if dflts, err = collect(th, defaults); err != nil {
			return nil, err
		}
		if len(dflts) > len(fields) {
			return nil, Errorf("TypeError", "Got more default values than field names")
		}
	}
	fieldTuple := make(starlark.Tuple, len(fields))
	for i, f := range fields {
		fieldTuple[i] = starlark.String(f)
	}
	fieldDefaults := starlark.NewDict(len(dflts))
	for i, d := range dflts {
		fieldDefaults.SetKey(fieldTuple[len(fields)-len(dflts)+i], d)
	}
	t := &Type{name: name, base: typeTuple, methods: tupleMethods}
	t.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) > len(fields) {
			return nil, Errorf("TypeError", "%s.__new__() takes %d positional arguments but %d were given", name, len(fields)+1, len(args)+1)
		}
		vals := make(starlark.Tuple, len(fields))
		copy(vals, args)
		set := make([]bool, len(fields))
		for i := range args {
			set[i] = true
		}
		for _, kv := range kwargs {
			k := string(kv[0].(starlark.String))
			found := false
			for i, f := range fields {
				if f == k {
					if set[i] {
						return nil, Errorf("TypeError", "%s.__new__() got multiple values for argument '%s'", name, k)
					}
					vals[i], set[i], found = kv[1], true, true
				}
			}
			if !found {
				return nil, Errorf("TypeError", "%s.__new__() got an unexpected keyword argument '%s'", name, k)
			}
		}
		var missing []string
		for i := range fields {
			if !set[i] {
				if j := i - (len(fields) - len(dflts)); j >= 0 {
					vals[i] = dflts[j]
					continue
				}
				missing = append(missing, fields[i])
			}
		}
		if len(missing) > 0 {
			s := "s"
			if len(missing) == 1 {
				s = ""
			}
			return nil, Errorf("TypeError", "%s.__new__() missing %d required positional argument%s: %s", name, len(missing), s, argList(missing))
		}
		return &namedtupleValue{Tuple: vals, typ: t, fields: fields}, nil
	}
	fieldDefaults.Freeze()
	t.attrs = map[string]starlark.Value{
		"_fields":         fieldTuple,
		"__match_args__":  fieldTuple,
		"_field_defaults": fieldDefaults,
		"_make": fn("_make", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var it starlark.Value
			if err := starlark.UnpackPositionalArgs("_make", args, kwargs, 1, &it); err != nil {
				return nil, err
			}
			vals, err := collect(th, it)
			if err != nil {
				return nil, err
			}
			if len(vals) != len(fields) {
				return nil, Errorf("TypeError", "Expected %d arguments, got %d", len(fields), len(vals))
			}
			return &namedtupleValue{Tuple: vals, typ: t, fields: fields}, nil
		}),
	}
	return t, nil
}

func newDictLike(kind *Type) func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		d := &dictLike{Dict: starlark.NewDict(0), kind: kind, th: th}
		if kind == typeDefaultDict && len(args) > 0 {
			if _, ok := args[0].(starlark.Callable); !ok && args[0] != starlark.None {
				return nil, Errorf("TypeError", "first argument must be callable or None")
			}
			d.factory = args[0]
			args = args[1:]
		}
		if kind == typeCounter {
			if len(args) > 1 {
				return nil, Errorf("TypeError", "expected at most 1 argument, got %d", len(args))
			}
			if len(args) == 1 {
				if err := counterAdd(th, d, args[0], 1); err != nil {
					return nil, err
				}
			}
			for _, kv := range kwargs {
				d.Dict.SetKey(kv[0], kv[1])
			}
			return d, nil
		}
		inner, err := newDict(th, args, kwargs)
		if err != nil {
			return nil, err
		}
		d.Dict = inner.(*starlark.Dict)
		return d, nil
	}
}

func init() {
	typeCounter.new = newDictLike(typeCounter)
	typeDefaultDict.new = newDictLike(typeDefaultDict)
	typeOrderedDict.new = newDictLike(typeOrderedDict)
	typeDeque.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var it starlark.Value = starlark.Tuple{}
		var maxlen starlark.Value = starlark.None
		if err := starlark.UnpackArgs("deque", args, kwargs, "iterable?", &it, "maxlen?", &maxlen); err != nil {
			return nil, err
		}
		q := &deque{maxlen: -1}
		if maxlen != starlark.None {
			n, err := toInt(maxlen)
			if err != nil {
				return nil, err
			}
			if n < 0 {
				return nil, Errorf("ValueError", "maxlen must be non-negative")
			}
			q.maxlen = n
		}
		vals, err := collect(th, it)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			q.push(th, v, false)
		}
		return q, nil
	}
	register("collections", func() starlark.StringDict {
		return starlark.StringDict{
			"Counter":     typeCounter,
			"defaultdict": typeDefaultDict,
			"OrderedDict": typeOrderedDict,
			"deque":       typeDeque,
			"namedtuple":  fn("namedtuple", namedtuple),
		}
	})
}

// CompareSameType compares two dicts of one kind by their contents.
func (d *dictLike) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	return d.Dict.CompareSameType(op, y.(*dictLike).Dict, depth)
}
