package collections

import (
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// collections: Counter, defaultdict and OrderedDict are dicts with extra
// behaviour (isinstance(c, dict) holds); deque is a list-like with fast
// ends; namedtuple makes tuple types with named fields.

var (
	typeCounter     = &core.Type{PyName: "Counter", Base: core.TypeDict}
	typeDefaultDict = &core.Type{PyName: "collections.defaultdict", Base: core.TypeDict}
	typeOrderedDict = &core.Type{PyName: "collections.OrderedDict", Base: core.TypeDict}
	typeDeque       = &core.Type{PyName: "collections.deque", Base: core.TypeObject}
)

// DictLike is a Counter, defaultdict or OrderedDict: a dict plus the
// kind's behaviour for missing keys, methods and repr.
type DictLike struct {
	*starlark.Dict
	kind    *core.Type
	factory starlark.Value   // defaultdict's default_factory
	th      *starlark.Thread // thread that made it, to call factory from Get
}

var (
	_ starlark.IterableMapping = (*DictLike)(nil)
	_ starlark.HasSetKey       = (*DictLike)(nil)
	_ starlark.Container       = (*DictLike)(nil)
	_ starlark.HasAttrs        = (*DictLike)(nil)
	_ core.Representer         = (*DictLike)(nil)
)

func (d *DictLike) Type() string           { return d.kind.PyName }
func (d *DictLike) PyType() starlark.Value { return d.kind }
func (d *DictLike) String() string         { return core.Repr(d) }

// Has is "k in d", which never inserts.
func (d *DictLike) Has(k starlark.Value) (bool, error) {
	_, found, err := d.Dict.Get(k)
	return found, err
}

// Get is d[k]: a Counter answers 0 for a missing key, a defaultdict
// inserts and returns default_factory().
func (d *DictLike) Get(k starlark.Value) (starlark.Value, bool, error) {
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

func (d *DictLike) PyRepr(th *starlark.Thread) (string, error) {
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
		s, err := core.ReprValue(th, nd)
		return "Counter(" + s + ")", err
	case typeDefaultDict:
		f := "None"
		if d.factory != nil && d.factory != starlark.None {
			var err error
			if f, err = core.ReprValue(th, d.factory); err != nil {
				return "", err
			}
		}
		s, err := core.ReprValue(th, d.Dict)
		return "defaultdict(" + f + ", " + s + ")", err
	}
	if d.Len() == 0 {
		return "OrderedDict()", nil
	}
	items := make([]starlark.Value, 0, d.Len())
	for _, it := range d.Items() {
		items = append(items, it)
	}
	s, err := core.ReprValue(th, starlark.NewList(items))
	return "OrderedDict(" + s + ")", err
}

func (d *DictLike) PyStr(th *starlark.Thread) (string, error) { return d.PyRepr(th) }

func (d *DictLike) AttrNames() []string {
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

func (d *DictLike) Attr(name string) (starlark.Value, error) {
	method := func(f core.BuiltinFn) (starlark.Value, error) { return core.Fn(name, f), nil }
	switch {
	case name == "default_factory" && d.kind == typeDefaultDict:
		if d.factory == nil {
			return starlark.None, nil
		}
		return d.factory, nil
	case name == "copy":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			c, err := core.CopyDict(th, d.Dict)
			if err != nil {
				return nil, err
			}
			return &DictLike{Dict: c, kind: d.kind, factory: d.factory, th: d.th}, nil
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
					if k, err = core.IndexInt(n); err != nil {
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
					n, _ := core.IndexInt(v)
					if err := core.Alloc(th, int64(max(n, 0))*core.ElemSize); err != nil {
						return nil, err
					}
					for i := 0; i < n; i++ {
						out = append(out, k)
					}
				}
				return core.SliceIterator("itertools.chain", out), nil
			})
		case "total":
			return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var acc starlark.Value = starlark.MakeInt(0)
				for _, v := range d.Entries() {
					r, err := starlark.Binary(syntax.PLUS, acc, core.Numeric(v))
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
					r, _ := core.ReprValue(th, k)
					return nil, core.Errorf(pyexc.KeyError, "%s", r)
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
					return nil, core.Errorf(pyexc.KeyError, "'dictionary is empty'")
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
	if m, ok := core.DictMethods[name]; ok {
		return m.BindReceiver(d.Dict), nil
	}
	return nil, core.Errorf(pyexc.AttributeError, "'%s' object has no attribute '%s'", d.kind.PyName, name)
}

// Binary implements Counter arithmetic (+, -, |, &) and dict | dict.
func (d *DictLike) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	other, ok := y.(*DictLike)
	if !ok || d.kind != typeCounter || other.kind != typeCounter {
		if op == syntax.PIPE {
			if yd, ok := asDict(y); ok {
				a, b := d.Dict, yd
				if side == starlark.Right {
					a, b = b, a
				}
				return &DictLike{Dict: a.Union(b), kind: d.kind, factory: d.factory, th: d.th}, nil
			}
		}
		return nil, nil
	}
	a, b := d, other
	if side == starlark.Right {
		a, b = b, a
	}
	out := &DictLike{Dict: starlark.NewDict(a.Len()), kind: typeCounter}
	get := func(c *DictLike, k starlark.Value) starlark.Value {
		v, found, _ := c.Dict.Get(k)
		if !found {
			return starlark.MakeInt(0)
		}
		return core.Numeric(v)
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
			if lt, _ := core.Less(x, z); lt {
				r = z
			}
		case syntax.AMP:
			r = x
			if lt, _ := core.Less(z, x); lt {
				r = z
			}
		default:
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if pos, _ := core.Less(starlark.MakeInt(0), r); pos {
			out.Dict.SetKey(k, r)
		}
	}
	return out, nil
}

// Unary is +c (the positive counts) and -c (the negative counts,
// negated) of a Counter.
func (d *DictLike) Unary(op syntax.Token) (starlark.Value, error) {
	if d.kind != typeCounter || op != syntax.PLUS && op != syntax.MINUS {
		return nil, nil
	}
	out := &DictLike{Dict: starlark.NewDict(d.Len()), kind: typeCounter}
	for _, kv := range d.Items() {
		v := core.Numeric(kv[1])
		if op == syntax.MINUS {
			r, err := starlark.Binary(syntax.MINUS, starlark.MakeInt(0), v)
			if err != nil {
				return nil, err
			}
			v = r
		}
		if pos, _ := core.Less(starlark.MakeInt(0), v); pos {
			if err := out.Dict.SetKey(kv[0], v); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func asDict(v starlark.Value) (*starlark.Dict, bool) {
	switch x := v.(type) {
	case *starlark.Dict:
		return x, true
	case *DictLike:
		return x.Dict, true
	}
	return nil, false
}

func counterAdd(th *starlark.Thread, d *DictLike, src starlark.Value, sign int) error {
	c := core.Charger{Th: th}
	add := func(k, n starlark.Value) error {
		cur, found, err := d.Dict.Get(k)
		if err != nil {
			return core.Unhashable(k, err)
		}
		if !found {
			cur = starlark.MakeInt(0)
			if err := c.Entry(k, cur); err != nil {
				return err
			}
		}
		op := syntax.PLUS
		if sign < 0 {
			op = syntax.MINUS
		}
		r, err := starlark.Binary(op, core.Numeric(cur), core.Numeric(n))
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
		return c.Flush()
	}
	err := core.ForEach(th, src, func(k starlark.Value) error {
		return add(k, starlark.MakeInt(1))
	})
	if err != nil {
		return err
	}
	return c.Flush()
}

// counterMostCommon returns (key, count) pairs by count, descending, ties
// in insertion order, as CPython's (stable) sort gives.
func counterMostCommon(th *starlark.Thread, d *DictLike, n int) ([]starlark.Value, error) {
	items := make([]starlark.Value, 0, d.Len())
	for _, it := range d.Items() {
		items = append(items, it)
	}
	key := core.Fn("count", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return core.Numeric(args[0].(starlark.Tuple)[1]), nil
	})
	if err := core.SortValues(th, items, key, true); err != nil {
		return nil, err
	}
	if n >= 0 && n < len(items) {
		items = items[:n]
	}
	return items, nil
}

// Deque is collections.deque.
type Deque struct {
	items  []starlark.Value
	maxlen int // -1: unbounded
	frozen bool
}

var (
	_ starlark.Sequence    = (*Deque)(nil)
	_ starlark.Indexable   = (*Deque)(nil)
	_ starlark.HasSetIndex = (*Deque)(nil)
	_ starlark.Container   = (*Deque)(nil)
	_ core.Representer     = (*Deque)(nil)
)

func (q *Deque) String() string         { return core.Repr(q) }
func (q *Deque) Type() string           { return "collections.deque" }
func (q *Deque) PyType() starlark.Value { return typeDeque }
func (q *Deque) Freeze()                { q.frozen = true }
func (q *Deque) Truth() starlark.Bool   { return len(q.items) > 0 }
func (q *Deque) Hash() (uint32, error) {
	return 0, core.Errorf(pyexc.TypeError, "unhashable type: 'collections.deque'")
}

// CompareSameType compares deques as lists, as CPython does.
func (q *Deque) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	return starlark.CompareDepth(op, starlark.Tuple(q.items), starlark.Tuple(y.(*Deque).items), depth)
}

func (q *Deque) Len() int                   { return len(q.items) }
func (q *Deque) Index(i int) starlark.Value { return q.items[i] }
func (q *Deque) Iterate() starlark.Iterator {
	return core.SliceIterator("_collections._deque_iterator", append([]starlark.Value(nil), q.items...)).Iterate()
}
func (q *Deque) Has(x starlark.Value) (bool, error) {
	for _, e := range q.items {
		if eq, err := core.Equal(e, x); err != nil || eq {
			return eq, err
		}
	}
	return false, nil
}
func (q *Deque) SetIndex(i int, v starlark.Value) error {
	if q.frozen {
		return core.Errorf(pyexc.TypeError, "cannot modify a frozen deque")
	}
	q.items[i] = v
	return nil
}

func (q *Deque) PyRepr(th *starlark.Thread) (string, error) {
	s, err := core.ReprValue(th, starlark.NewList(q.items))
	if err != nil {
		return "", err
	}
	if q.maxlen >= 0 {
		return "deque(" + s + ", maxlen=" + starlark.MakeInt(q.maxlen).String() + ")", nil
	}
	return "deque(" + s + ")", nil
}

func (q *Deque) PyStr(th *starlark.Thread) (string, error) { return q.PyRepr(th) }

func (q *Deque) push(th *starlark.Thread, v starlark.Value, left bool) error {
	if q.frozen {
		return core.Errorf(pyexc.TypeError, "cannot modify a frozen deque")
	}
	if q.maxlen == 0 {
		return nil
	}
	if len(q.items)%1024 == 1023 {
		if err := core.Alloc(th, 1024*core.ElemSize); err != nil {
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

func (q *Deque) AttrNames() []string {
	return []string{"append", "appendleft", "clear", "copy", "count", "extend", "extendleft", "index", "insert", "maxlen", "pop", "popleft", "remove", "reverse", "rotate"}
}

func (q *Deque) Attr(name string) (starlark.Value, error) {
	method := func(f core.BuiltinFn) (starlark.Value, error) { return core.Fn(name, f), nil }
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
			vals, err := core.Collect(th, v)
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
				return nil, core.Errorf(pyexc.IndexError, "pop from an empty deque")
			}
			if q.frozen {
				return nil, core.Errorf(pyexc.TypeError, "cannot modify a frozen deque")
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
			return &Deque{items: append([]starlark.Value(nil), q.items...), maxlen: q.maxlen}, nil
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
				if eq, _ := core.Equal(e, v); eq {
					q.items = append(q.items[:i], q.items[i+1:]...)
					return starlark.None, nil
				}
			}
			return nil, core.Errorf(pyexc.ValueError, "deque.remove(x): x not in deque")
		})
	case "insert":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var i int
			var v starlark.Value
			if err := starlark.UnpackPositionalArgs("insert", args, kwargs, 2, &i, &v); err != nil {
				return nil, err
			}
			if q.maxlen >= 0 && len(q.items) >= q.maxlen {
				return nil, core.Errorf(pyexc.IndexError, "deque already at its maximum size")
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
		m := core.ListMethods[name]
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return starlark.Call(th, m.BindReceiver(starlark.NewList(q.items)), args, kwargs)
		}), nil
	}
	return nil, core.Errorf(pyexc.AttributeError, "'collections.deque' object has no attribute '%s'", name)
}

var (
	_ core.Representer   = (*core.NamedtupleValue)(nil)
	_ starlark.HasBinary = (*core.NamedtupleValue)(nil)
	_ core.TupleSubclass = (*core.NamedtupleValue)(nil)
)

func newDictLike(kind *core.Type) func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		d := &DictLike{Dict: starlark.NewDict(0), kind: kind, th: th}
		if kind == typeDefaultDict && len(args) > 0 {
			if _, ok := args[0].(starlark.Callable); !ok && args[0] != starlark.None {
				return nil, core.Errorf(pyexc.TypeError, "first argument must be callable or None")
			}
			d.factory = args[0]
			args = args[1:]
		}
		if kind == typeCounter {
			if len(args) > 1 {
				return nil, core.Errorf(pyexc.TypeError, "expected at most 1 argument, got %d", len(args))
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
		inner, err := core.NewDict(th, args, kwargs)
		if err != nil {
			return nil, err
		}
		d.Dict = inner.(*starlark.Dict)
		return d, nil
	}
}

func init() {
	typeCounter.New = newDictLike(typeCounter)
	typeDefaultDict.New = newDictLike(typeDefaultDict)
	typeOrderedDict.New = newDictLike(typeOrderedDict)
	typeDeque.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var it starlark.Value = starlark.Tuple{}
		var maxlen starlark.Value = starlark.None
		if err := starlark.UnpackArgs("deque", args, kwargs, "iterable?", &it, "maxlen?", &maxlen); err != nil {
			return nil, err
		}
		q := &Deque{maxlen: -1}
		if maxlen != starlark.None {
			n, err := core.IndexInt(maxlen)
			if err != nil {
				return nil, err
			}
			if n < 0 {
				return nil, core.Errorf(pyexc.ValueError, "maxlen must be non-negative")
			}
			q.maxlen = n
		}
		vals, err := core.Collect(th, it)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			q.push(th, v, false)
		}
		return q, nil
	}
}

// CompareSameType compares two dicts of one kind by their contents; two
// OrderedDicts by their items in order too, as in CPython (an OrderedDict
// and a dict compare as dicts).
func (d *DictLike) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	o := y.(*DictLike)
	if d.kind == typeOrderedDict && o.kind == typeOrderedDict && (op == syntax.EQL || op == syntax.NEQ) {
		eq, err := orderedEqual(d.Dict, o.Dict, depth)
		return eq == (op == syntax.EQL), err
	}
	return d.Dict.CompareSameType(op, o.Dict, depth)
}

// orderedEqual reports whether two dicts hold equal items in the same
// order.
func orderedEqual(x, y *starlark.Dict, depth int) (bool, error) {
	if x.Len() != y.Len() {
		return false, nil
	}
	xi, yi := x.Iterate(), y.Iterate()
	defer xi.Done()
	defer yi.Done()
	var xk, yk starlark.Value
	for xi.Next(&xk) && yi.Next(&yk) {
		if eq, err := starlark.EqualDepth(xk, yk, depth-1); err != nil || !eq {
			return false, err
		}
		xv, _, err := x.Get(xk)
		if err != nil {
			return false, err
		}
		yv, _, err := y.Get(yk)
		if err != nil {
			return false, err
		}
		if eq, err := starlark.EqualDepth(xv, yv, depth-1); err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

func members() starlark.StringDict {
	return starlark.StringDict{
		"Counter":     typeCounter,
		"defaultdict": typeDefaultDict,
		"OrderedDict": typeOrderedDict,
		"deque":       typeDeque,
		"ChainMap":    typeChainMap,
		"namedtuple":  core.Fn("namedtuple", core.Namedtuple),
	}
}

func (d *DictLike) CopyItems(th *starlark.Thread, deep bool, memo map[starlark.Value]starlark.Value, depth int) (starlark.Value, error) {
	inner, err := core.CopyValue(th, d.Dict, deep, memo, depth)
	if err != nil {
		return nil, err
	}
	return &DictLike{Dict: inner.(*starlark.Dict), kind: d.kind, factory: d.factory, th: d.th}, nil
}

func (q *Deque) CopyItems(th *starlark.Thread, deep bool, memo map[starlark.Value]starlark.Value, depth int) (starlark.Value, error) {
	out := &Deque{maxlen: q.maxlen}
	memo[q] = out
	for _, e := range q.items {
		if deep {
			c, err := core.CopyValue(th, e, true, memo, depth+1)
			if err != nil {
				return nil, err
			}
			e = c
		}
		out.items = append(out.items, e)
	}
	return out, nil
}

// Module returns a new collections module.
func Module() *core.PyModule { return core.NewModule("collections", members()) }
