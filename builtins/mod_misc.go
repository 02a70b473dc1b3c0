package builtins

import (
	"strings"

	"go.starlark.net/starlark"
)

// typing, copy, queue, stat and enum.

// typingForm is a typing name (List, Optional[int], ...). Annotations are
// ignored by the front end, but aliases such as Vector = List[float] are
// evaluated, so forms can be subscripted and printed.
type typingForm struct{ name string }

func (f *typingForm) String() string        { return "typing." + f.name }
func (f *typingForm) Type() string          { return "typing._GenericAlias" }
func (f *typingForm) Freeze()               {}
func (f *typingForm) Truth() starlark.Bool  { return true }
func (f *typingForm) Hash() (uint32, error) { return starlark.String(f.name).Hash() }

// Get implements subscription: List[int] is typing.List[int].
func (f *typingForm) Get(k starlark.Value) (starlark.Value, bool, error) {
	var parts []string
	name := func(v starlark.Value) string {
		switch x := v.(type) {
		case *Type:
			return x.name
		case *typingForm:
			return "typing." + x.name
		case starlark.NoneType:
			return "NoneType"
		}
		return Repr(v)
	}
	if t, ok := k.(starlark.Tuple); ok {
		for _, e := range t {
			parts = append(parts, name(e))
		}
	} else {
		parts = []string{name(k)}
	}
	return &typingForm{name: f.name + "[" + strings.Join(parts, ", ") + "]"}, true, nil
}

// CallInternal lets NewType-like and cast-like uses of forms pass values
// through unchanged.
func (f *typingForm) CallInternal(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return nil, Errorf("TypeError", "Type %s cannot be instantiated", f.name)
}

func (f *typingForm) Name() string { return f.name }

// IsInstance makes isinstance(x, typing.Any)-style checks fail loudly as
// in Python rather than silently.
func (f *typingForm) IsInstance(v starlark.Value) bool { return false }

func typingModule() starlark.StringDict {
	m := starlark.StringDict{
		"TYPE_CHECKING": starlark.False,
		"cast": fn("cast", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var t, v starlark.Value
			if err := starlark.UnpackPositionalArgs("cast", args, kwargs, 2, &t, &v); err != nil {
				return nil, err
			}
			return v, nil
		}),
		"TypeVar": fn("TypeVar", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) == 0 {
				return nil, Errorf("TypeError", "TypeVar() missing required argument 'name'")
			}
			s, _ := args[0].(starlark.String)
			return &typingForm{name: string(s)}, nil
		}),
		"NewType": fn("NewType", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var name string
			var tp starlark.Value
			if err := starlark.UnpackPositionalArgs("NewType", args, kwargs, 2, &name, &tp); err != nil {
				return nil, err
			}
			return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var v starlark.Value
				if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &v); err != nil {
					return nil, err
				}
				return v, nil
			}), nil
		}),
		"overload":          fn("overload", identity),
		"final":             fn("final", identity),
		"runtime_checkable": fn("runtime_checkable", identity),
		"no_type_check":     fn("no_type_check", identity),
	}
	for _, n := range []string{"Any", "List", "Dict", "Set", "FrozenSet", "Tuple", "Optional", "Union", "Callable",
		"Iterable", "Iterator", "Sequence", "Mapping", "MutableMapping", "MutableSequence", "Generator", "Type",
		"Literal", "Final", "ClassVar", "Annotated", "NoReturn", "Hashable", "Sized", "Collection", "Container",
		"AbstractSet", "MutableSet", "Deque", "DefaultDict", "OrderedDict", "Counter", "ChainMap", "Awaitable",
		"Coroutine", "AsyncIterator", "AsyncIterable", "Reversible", "SupportsInt", "SupportsFloat", "Text",
		"AnyStr", "Pattern", "Match", "IO", "TextIO", "BinaryIO", "Protocol", "Generic", "TypedDict", "Self",
		"Never", "LiteralString", "Required", "NotRequired", "ParamSpec", "Concatenate", "TypeAlias", "TypeGuard"} {
		m[n] = &typingForm{name: n}
	}
	return m
}

func identity(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackPositionalArgs("decorator", args, kwargs, 1, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// Copier is implemented by values with their own copy semantics (the
// front end's class instances): copy.copy and copy.deepcopy call it.
type Copier interface {
	starlark.Value
	PyCopy(th *starlark.Thread, deep bool, memo map[starlark.Value]starlark.Value) (starlark.Value, error)
}

// copyValue implements copy.copy (deep=false) and copy.deepcopy. Values
// it does not know are refused rather than shared, because sharing a
// mutable object would be a silently wrong copy.
func copyValue(th *starlark.Thread, v starlark.Value, deep bool, memo map[starlark.Value]starlark.Value, depth int) (starlark.Value, error) {
	if depth > 1000 {
		return nil, Errorf("RecursionError", "maximum recursion depth exceeded while copying")
	}
	if depth%64 == 0 {
		if err := Interrupted(th); err != nil {
			return nil, err
		}
	}
	switch v.(type) {
	case starlark.NoneType, starlark.Bool, starlark.Int, starlark.Float, starlark.String, starlark.Bytes,
		*starlark.Function, *starlark.Builtin, *Type, *PyModule, *typingForm, *rePattern:
		return v, nil
	}
	if v.Type() == "range" {
		return v, nil
	}
	if c, ok := memoGet(memo, v); ok {
		return c, nil
	}
	elem := func(e starlark.Value) (starlark.Value, error) {
		if !deep {
			return e, nil
		}
		return copyValue(th, e, true, memo, depth+1)
	}
	switch x := v.(type) {
	case starlark.Tuple:
		if !deep {
			return x, nil
		}
		// Tuples are not memoised: a tuple held n times is copied n times.
		if err := Alloc(th, TupleHeaderSize+int64(len(x))*SlotSize); err != nil {
			return nil, err
		}
		out := make(starlark.Tuple, len(x))
		for i, e := range x {
			c, err := elem(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case *namedtupleValue:
		t, err := copyValue(th, x.Tuple, deep, memo, depth)
		if err != nil {
			return nil, err
		}
		return &namedtupleValue{Tuple: t.(starlark.Tuple), typ: x.typ, fields: x.fields}, nil
	case *starlark.List:
		if err := Alloc(th, int64(x.Len())*elemSize); err != nil {
			return nil, err
		}
		out := starlark.NewList(make([]starlark.Value, 0, x.Len()))
		memo[v] = out
		for i := 0; i < x.Len(); i++ {
			c, err := elem(x.Index(i))
			if err != nil {
				return nil, err
			}
			out.Append(c)
		}
		return out, nil
	case *starlark.Dict:
		if err := Alloc(th, int64(x.Len())*DictEntrySize); err != nil {
			return nil, err
		}
		out := starlark.NewDict(x.Len())
		memo[v] = out
		for k, e := range x.Entries() {
			ck, err := elem(k)
			if err != nil {
				return nil, err
			}
			ce, err := elem(e)
			if err != nil {
				return nil, err
			}
			out.SetKey(ck, ce)
		}
		return out, nil
	case *dictLike:
		inner, err := copyValue(th, x.Dict, deep, memo, depth)
		if err != nil {
			return nil, err
		}
		return &dictLike{Dict: inner.(*starlark.Dict), kind: x.kind, factory: x.factory, th: x.th}, nil
	case *starlark.Set:
		if err := Alloc(th, int64(x.Len())*DictEntrySize); err != nil {
			return nil, err
		}
		out := starlark.NewSet(x.Len())
		memo[v] = out
		for e := range x.Elements() {
			c, err := elem(e)
			if err != nil {
				return nil, err
			}
			out.Insert(c)
		}
		return out, nil
	case *FrozenSet:
		if !deep {
			return x, nil // immutable: copy.copy returns it, as in CPython
		}
		if err := Alloc(th, int64(x.Len())*DictEntrySize); err != nil {
			return nil, err
		}
		out := starlark.NewSet(x.Len())
		for _, e := range x.Elements() {
			c, err := elem(e)
			if err != nil {
				return nil, err
			}
			if err := out.Insert(c); err != nil {
				return nil, err
			}
		}
		fs := NewFrozenSet(out)
		memo[v] = fs
		return fs, nil
	case *deque:
		out := &deque{maxlen: x.maxlen}
		memo[v] = out
		for _, e := range x.items {
			c, err := elem(e)
			if err != nil {
				return nil, err
			}
			out.items = append(out.items, c)
		}
		return out, nil
	case Copier:
		return x.PyCopy(th, deep, memo)
	}
	return nil, Errorf("TypeError", "cannot copy '%s' object", TypeName(v))
}

// memoGet looks v up by identity, ignoring values that cannot be map
// keys.
func memoGet(memo map[starlark.Value]starlark.Value, v starlark.Value) (c starlark.Value, ok bool) {
	defer func() {
		if recover() != nil {
			c, ok = nil, false
		}
	}()
	c, ok = memo[v]
	return
}

func copyModule() starlark.StringDict {
	mk := func(name string, deep bool) *starlark.Builtin {
		return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x, memo starlark.Value
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &x, &memo); err != nil {
				return nil, err
			}
			return copyValue(th, x, deep, map[starlark.Value]starlark.Value{}, 0)
		})
	}
	return starlark.StringDict{"copy": mk("copy", false), "deepcopy": mk("deepcopy", true)}
}

// pyQueue is queue.Queue, LifoQueue and PriorityQueue for one thread of
// execution: get() on an empty queue raises queue.Empty instead of
// blocking forever.
type pyQueue struct {
	kind    string
	items   []starlark.Value
	maxsize int
}

func (q *pyQueue) String() string       { return "<queue." + q.kind + " object>" }
func (q *pyQueue) Type() string         { return "queue." + q.kind }
func (q *pyQueue) Freeze()              {}
func (q *pyQueue) Truth() starlark.Bool { return true }
func (q *pyQueue) Hash() (uint32, error) {
	return 0, Errorf("TypeError", "unhashable type: 'queue.%s'", q.kind)
}
func (q *pyQueue) AttrNames() []string {
	return []string{"empty", "full", "get", "get_nowait", "put", "put_nowait", "qsize"}
}

func (q *pyQueue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "qsize":
		return fn(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.MakeInt(len(q.items)), nil
		}), nil
	case "empty":
		return fn(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.Bool(len(q.items) == 0), nil
		}), nil
	case "full":
		return fn(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.Bool(q.maxsize > 0 && len(q.items) >= q.maxsize), nil
		}), nil
	case "put", "put_nowait":
		return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var item, block, timeout starlark.Value
			if err := starlark.UnpackArgs(name, args, kwargs, "item", &item, "block?", &block, "timeout?", &timeout); err != nil {
				return nil, err
			}
			if q.maxsize > 0 && len(q.items) >= q.maxsize {
				return nil, Errorf("Full", "")
			}
			if len(q.items)%1024 == 1023 {
				if err := Alloc(th, 1024*elemSize); err != nil {
					return nil, err
				}
			}
			if q.kind != "PriorityQueue" {
				q.items = append(q.items, item)
				return starlark.None, nil
			}
			// Keep the heap as a sorted slice: insertion after equal
			// items matches heapq's pop order for distinct priorities.
			i := len(q.items)
			for i > 0 {
				lt, err := less(item, q.items[i-1])
				if err != nil {
					return nil, err
				}
				if !lt {
					break
				}
				i--
			}
			q.items = append(q.items[:i], append([]starlark.Value{item}, q.items[i:]...)...)
			return starlark.None, nil
		}), nil
	case "get", "get_nowait":
		return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(q.items) == 0 {
				return nil, Errorf("Empty", "")
			}
			var v starlark.Value
			if q.kind == "LifoQueue" {
				v, q.items = q.items[len(q.items)-1], q.items[:len(q.items)-1]
			} else {
				v, q.items = q.items[0], q.items[1:]
			}
			return v, nil
		}), nil
	case "task_done", "join":
		return fn(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.None, nil
		}), nil
	}
	return nil, nil
}

func queueModule() starlark.StringDict {
	m := starlark.StringDict{}
	for _, kind := range []string{"Queue", "LifoQueue", "PriorityQueue", "SimpleQueue"} {
		kind := kind
		m[kind] = &Type{name: "queue." + kind, base: typeObject, new: func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			maxsize := 0
			if err := starlark.UnpackArgs(kind, args, kwargs, "maxsize?", &maxsize); err != nil {
				return nil, err
			}
			k := kind
			if k == "SimpleQueue" {
				k = "Queue"
			}
			return &pyQueue{kind: k, maxsize: maxsize}, nil
		}}
	}
	return m
}

func statModule() starlark.StringDict {
	consts := map[string]int{
		"S_IFMT": 0o170000, "S_IFSOCK": 0o140000, "S_IFLNK": 0o120000, "S_IFREG": 0o100000, "S_IFBLK": 0o060000,
		"S_IFDIR": 0o040000, "S_IFCHR": 0o020000, "S_IFIFO": 0o010000, "S_ISUID": 0o4000, "S_ISGID": 0o2000,
		"S_ISVTX": 0o1000, "S_IRWXU": 0o700, "S_IRUSR": 0o400, "S_IWUSR": 0o200, "S_IXUSR": 0o100,
		"S_IRWXG": 0o70, "S_IRGRP": 0o40, "S_IWGRP": 0o20, "S_IXGRP": 0o10, "S_IRWXO": 0o7, "S_IROTH": 0o4,
		"S_IWOTH": 0o2, "S_IXOTH": 0o1, "ST_MODE": 0, "ST_INO": 1, "ST_DEV": 2, "ST_NLINK": 3, "ST_UID": 4,
		"ST_GID": 5, "ST_SIZE": 6, "ST_ATIME": 7, "ST_MTIME": 8, "ST_CTIME": 9,
	}
	m := starlark.StringDict{}
	for k, v := range consts {
		m[k] = starlark.MakeInt(v)
	}
	is := func(name string, bits int) {
		m[name] = fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var mode int
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &mode); err != nil {
				return nil, err
			}
			return starlark.Bool(mode&0o170000 == bits), nil
		})
	}
	is("S_ISDIR", 0o040000)
	is("S_ISREG", 0o100000)
	is("S_ISLNK", 0o120000)
	is("S_ISCHR", 0o020000)
	is("S_ISBLK", 0o060000)
	is("S_ISFIFO", 0o010000)
	is("S_ISSOCK", 0o140000)
	m["S_IMODE"] = fn("S_IMODE", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var mode int
		if err := starlark.UnpackPositionalArgs("S_IMODE", args, kwargs, 1, &mode); err != nil {
			return nil, err
		}
		return starlark.MakeInt(mode & 0o7777), nil
	})
	m["filemode"] = fn("filemode", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var mode int
		if err := starlark.UnpackPositionalArgs("filemode", args, kwargs, 1, &mode); err != nil {
			return nil, err
		}
		kinds := map[int]byte{0o140000: 's', 0o120000: 'l', 0o100000: '-', 0o060000: 'b', 0o040000: 'd', 0o020000: 'c', 0o010000: 'p'}
		k, ok := kinds[mode&0o170000]
		if !ok {
			k = '?'
		}
		out := []byte{k}
		for i, c := range "rwxrwxrwx" {
			if mode&(1<<(8-i)) != 0 {
				out = append(out, byte(c))
			} else {
				out = append(out, '-')
			}
		}
		return starlark.String(out), nil
	})
	return m
}

func init() {
	register("typing", typingModule)
	register("copy", copyModule)
	register("queue", queueModule)
	register("stat", statModule)
	register("enum", enumModule)
}
