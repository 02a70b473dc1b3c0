package functools

import (
	"strings"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// functools: reduce, partial, lru_cache/cache (real caches), cmp_to_key,
// and wraps/total_ordering as the identity decorators they amount to here.

// partial is functools.partial.
type partial struct {
	f      starlark.Value
	args   starlark.Tuple
	kwargs []starlark.Tuple
}

var _ starlark.Callable = (*partial)(nil)

func (p *partial) Name() string         { return "partial" }
func (p *partial) Type() string         { return "functools.partial" }
func (p *partial) Freeze()              {}
func (p *partial) Truth() starlark.Bool { return true }
func (p *partial) Hash() (uint32, error) {
	return 0, core.Errorf(pyexc.TypeError, "unhashable type: 'functools.partial'")
}
func (p *partial) String() string {
	parts := []string{core.Repr(p.f)}
	for _, a := range p.args {
		parts = append(parts, core.Repr(a))
	}
	for _, kv := range p.kwargs {
		parts = append(parts, string(kv[0].(starlark.String))+"="+core.Repr(kv[1]))
	}
	return "functools.partial(" + strings.Join(parts, ", ") + ")"
}

func (p *partial) CallInternal(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	all := append(append(starlark.Tuple(nil), p.args...), args...)
	kw := append([]starlark.Tuple(nil), p.kwargs...)
	for _, kv := range kwargs {
		replaced := false
		for i := range kw {
			if kw[i][0] == kv[0] {
				kw[i], replaced = kv, true
			}
		}
		if !replaced {
			kw = append(kw, kv)
		}
	}
	return starlark.Call(th, p.f, all, kw)
}

func (p *partial) AttrNames() []string { return []string{"args", "func", "keywords"} }
func (p *partial) Attr(name string) (starlark.Value, error) {
	switch name {
	case "func":
		return p.f, nil
	case "args":
		return p.args, nil
	case "keywords":
		d := starlark.NewDict(len(p.kwargs))
		for _, kv := range p.kwargs {
			d.SetKey(kv[0], kv[1])
		}
		return d, nil
	}
	return nil, nil
}

// cachedFunc is what lru_cache and cache make of a function: CPython's
// C lru_cache, with its keys, its least-recently-used eviction and its
// hit and miss counts.
type cachedFunc struct {
	f       starlark.Value
	cache   *starlark.Dict // key -> result, least recently used first
	maxsize int            // -1: unbounded
	typed   bool
	hits    int
	misses  int
}

var _ starlark.Callable = (*cachedFunc)(nil)

// kwdMark separates positional from keyword arguments in a cache key, as
// CPython's kwd_mark object does, so f(1, "b", 2) and f(1, b=2) differ.
type kwdMark struct{}

func (kwdMark) String() string        { return "<object object>" }
func (kwdMark) Type() string          { return "object" }
func (kwdMark) Freeze()               {}
func (kwdMark) Truth() starlark.Bool  { return true }
func (kwdMark) Hash() (uint32, error) { return 0x6b77646d, nil }

// cacheInfoType is functools._CacheInfo.
var cacheInfoType = func() starlark.Value {
	t, err := core.Namedtuple(nil, nil, starlark.Tuple{starlark.String("CacheInfo"), starlark.String("hits misses maxsize currsize")}, nil)
	if err != nil {
		panic(err)
	}
	return t
}()

func (c *cachedFunc) Name() string {
	if n, ok := c.f.(interface{ Name() string }); ok {
		return n.Name()
	}
	return "cached"
}
func (c *cachedFunc) Type() string          { return "functools._lru_cache_wrapper" }
func (c *cachedFunc) String() string        { return "<functools._lru_cache_wrapper object>" }
func (c *cachedFunc) Freeze()               {}
func (c *cachedFunc) Truth() starlark.Bool  { return true }
func (c *cachedFunc) Hash() (uint32, error) { return starlark.String(c.Name()).Hash() }

// key is CPython's lru_cache_make_key: a lone int or str argument is its
// own key; otherwise the arguments, then a marker and the keyword
// arguments, then (typed) the arguments' types.
func (c *cachedFunc) key(args starlark.Tuple, kwargs []starlark.Tuple) starlark.Value {
	if !c.typed && len(kwargs) == 0 {
		if len(args) == 1 {
			switch args[0].(type) {
			case starlark.Int, starlark.String:
				return args[0]
			}
		}
		return args
	}
	key := append(starlark.Tuple(nil), args...)
	if len(kwargs) > 0 {
		key = append(key, kwdMark{})
		for _, kv := range kwargs {
			key = append(key, kv[0], kv[1])
		}
	}
	if c.typed {
		for _, a := range args {
			key = append(key, core.TypeOf(a))
		}
		for _, kv := range kwargs {
			key = append(key, core.TypeOf(kv[1]))
		}
	}
	return key
}

// firstUnhashable is the item of a cache key that CPython's hash of the
// key stops at.
func firstUnhashable(key starlark.Value) starlark.Value {
	if t, ok := key.(starlark.Tuple); ok {
		for _, v := range t {
			if _, err := v.Hash(); err != nil {
				return firstUnhashable(v)
			}
		}
	}
	return key
}

func (c *cachedFunc) CallInternal(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if c.maxsize == 0 {
		c.misses++
		return starlark.Call(th, c.f, args, kwargs)
	}
	key := c.key(args, kwargs)
	if v, found, err := c.cache.Get(key); err != nil {
		return nil, core.Unhashable(firstUnhashable(key), err)
	} else if found {
		c.hits++
		if c.maxsize > 0 {
			// Most recently used: move to the end.
			if _, _, err := c.cache.Delete(key); err != nil {
				return nil, err
			}
			if err := c.cache.SetKey(key, v); err != nil {
				return nil, err
			}
		}
		return v, nil
	}
	c.misses++
	v, err := starlark.Call(th, c.f, args, kwargs)
	if err != nil {
		return nil, err
	}
	if c.maxsize > 0 {
		if _, found, _ := c.cache.Get(key); found {
			// A recursive call cached it meanwhile.
			return v, nil
		}
		if c.cache.Len() >= c.maxsize {
			var oldest starlark.Value
			for k := range c.cache.Entries() {
				oldest = k
				break
			}
			if _, _, err := c.cache.Delete(oldest); err != nil {
				return nil, err
			}
		}
	}
	if c.cache.Len()%1024 == 1023 {
		if err := core.Alloc(th, 1024*4*core.ElemSize); err != nil {
			return nil, err
		}
	}
	if err := c.cache.SetKey(key, v); err != nil {
		return nil, err
	}
	return v, nil
}

func (c *cachedFunc) AttrNames() []string {
	return []string{"__wrapped__", "cache_clear", "cache_info", "cache_parameters"}
}

func (c *cachedFunc) Attr(name string) (starlark.Value, error) {
	var ms starlark.Value = starlark.None
	if c.maxsize >= 0 {
		ms = starlark.MakeInt(c.maxsize)
	}
	switch name {
	case "cache_clear":
		return core.Fn(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
				return nil, err
			}
			c.hits, c.misses = 0, 0
			return starlark.None, c.cache.Clear()
		}), nil
	case "cache_info":
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
				return nil, err
			}
			return cacheInfoType.(*core.Type).CallInternal(th, starlark.Tuple{starlark.MakeInt(c.hits), starlark.MakeInt(c.misses), ms, starlark.MakeInt(c.cache.Len())}, nil)
		}), nil
	case "cache_parameters":
		return core.Fn(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
				return nil, err
			}
			d := starlark.NewDict(2)
			d.SetKey(starlark.String("maxsize"), ms)
			d.SetKey(starlark.String("typed"), starlark.Bool(c.typed))
			return d, nil
		}), nil
	case "__wrapped__":
		return c.f, nil
	}
	return nil, nil
}

// cmpKey is what cmp_to_key's key function returns: ordered by calling
// the user's comparison on the thread that made the key.
type cmpKey struct {
	v   starlark.Value
	cmp starlark.Value
	th  *starlark.Thread
}

func (k *cmpKey) String() string       { return "<functools.KeyWrapper object>" }
func (k *cmpKey) Type() string         { return "functools.KeyWrapper" }
func (k *cmpKey) Freeze()              {}
func (k *cmpKey) Truth() starlark.Bool { return true }
func (k *cmpKey) Hash() (uint32, error) {
	return 0, core.Errorf(pyexc.TypeError, "unhashable type: 'functools.KeyWrapper'")
}

func (k *cmpKey) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	r, err := starlark.Call(k.th, k.cmp, starlark.Tuple{k.v, y.(*cmpKey).v}, nil)
	if err != nil {
		return false, err
	}
	n, ok := core.Int(r)
	if !ok {
		if f, isF := r.(starlark.Float); isF {
			n = starlark.MakeInt(0)
			if f < 0 {
				n = starlark.MakeInt(-1)
			} else if f > 0 {
				n = starlark.MakeInt(1)
			}
		} else {
			return false, core.Errorf(pyexc.TypeError, "comparison function must return int, not %s", core.TypeName(r))
		}
	}
	s := n.Sign()
	switch op {
	case syntax.LT:
		return s < 0, nil
	case syntax.LE:
		return s <= 0, nil
	case syntax.GT:
		return s > 0, nil
	case syntax.GE:
		return s >= 0, nil
	case syntax.EQL:
		return s == 0, nil
	}
	return s != 0, nil
}

func members() starlark.StringDict {
	makeCache := func(f starlark.Value, maxsize int, typed bool) (starlark.Value, error) {
		if _, ok := f.(starlark.Callable); !ok {
			return nil, core.Errorf(pyexc.TypeError, "the first argument must be callable")
		}
		return &cachedFunc{f: f, cache: starlark.NewDict(0), maxsize: maxsize, typed: typed}, nil
	}
	return starlark.StringDict{
		"reduce": core.Fn("reduce", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var f, it, acc starlark.Value
			if err := starlark.UnpackPositionalArgs("reduce", args, kwargs, 2, &f, &it, &acc); err != nil {
				return nil, err
			}
			err := core.ForEach(th, it, func(v starlark.Value) error {
				if acc == nil {
					acc = v
					return nil
				}
				r, err := starlark.Call(th, f, starlark.Tuple{acc, v}, nil)
				acc = r
				return err
			})
			if err != nil {
				return nil, err
			}
			if acc == nil {
				return nil, core.Errorf(pyexc.TypeError, "reduce() of empty iterable with no initial value")
			}
			return acc, nil
		}),
		"partial": core.Fn("partial", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) == 0 {
				return nil, core.Errorf(pyexc.TypeError, "type 'partial' takes at least one argument")
			}
			if _, ok := args[0].(starlark.Callable); !ok {
				return nil, core.Errorf(pyexc.TypeError, "the first argument must be callable")
			}
			return &partial{f: args[0], args: append(starlark.Tuple(nil), args[1:]...), kwargs: kwargs}, nil
		}),
		"lru_cache": core.Fn("lru_cache", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			// Both @lru_cache and @lru_cache(maxsize=...) forms.
			var maxsize, typed starlark.Value = starlark.MakeInt(128), starlark.False
			if err := starlark.UnpackArgs("lru_cache", args, kwargs, "maxsize?", &maxsize, "typed?", &typed); err != nil {
				return nil, err
			}
			n := -1
			switch m := maxsize.(type) {
			case starlark.NoneType:
			case starlark.Int, starlark.Bool:
				size, _ := core.Int(m)
				if i, err := core.IndexInt(size); err == nil {
					n = max(i, 0)
				} else if size.Sign() > 0 {
					n = int(^uint(0) >> 1)
				} else {
					n = 0
				}
			case starlark.Callable:
				// @lru_cache without arguments.
				return makeCache(m, 128, bool(typed.Truth()))
			default:
				return nil, core.Errorf(pyexc.TypeError, "Expected first argument to be an integer, a callable, or None")
			}
			return core.Fn("decorating_function", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var f starlark.Value
				if err := starlark.UnpackPositionalArgs("lru_cache", args, kwargs, 1, &f); err != nil {
					return nil, err
				}
				return makeCache(f, n, bool(typed.Truth()))
			}), nil
		}),
		"cache": core.Fn("cache", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var f starlark.Value
			if err := starlark.UnpackPositionalArgs("cache", args, kwargs, 1, &f); err != nil {
				return nil, err
			}
			return makeCache(f, -1, false)
		}),
		"cmp_to_key": core.Fn("cmp_to_key", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var cmp starlark.Value
			if err := starlark.UnpackPositionalArgs("cmp_to_key", args, kwargs, 1, &cmp); err != nil {
				return nil, err
			}
			return core.Fn("K", func(th2 *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var v starlark.Value
				if err := starlark.UnpackPositionalArgs("K", args, kwargs, 1, &v); err != nil {
					return nil, err
				}
				return &cmpKey{v: v, cmp: cmp, th: th2}, nil
			}), nil
		}),
		"wraps": core.Fn("wraps", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var wrapped, assigned, updated starlark.Value
			if err := starlark.UnpackArgs("wraps", args, kwargs, "wrapped", &wrapped, "assigned?", &assigned, "updated?", &updated); err != nil {
				return nil, err
			}
			return core.Fn("update_wrapper", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var wrapper starlark.Value
				if err := starlark.UnpackPositionalArgs("update_wrapper", args, kwargs, 1, &wrapper); err != nil {
					return nil, err
				}
				return core.Wrap(wrapper, wrapped)
			}), nil
		}),
		"update_wrapper": core.Fn("update_wrapper", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var wrapper, wrapped, assigned, updated starlark.Value
			if err := starlark.UnpackArgs("update_wrapper", args, kwargs, "wrapper", &wrapper, "wrapped", &wrapped, "assigned?", &assigned, "updated?", &updated); err != nil {
				return nil, err
			}
			return core.Wrap(wrapper, wrapped)
		}),
		"total_ordering": core.Fn("total_ordering", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var c starlark.Value
			if err := starlark.UnpackPositionalArgs("total_ordering", args, kwargs, 1, &c); err != nil {
				return nil, err
			}
			return c, nil
		}),
	}
}

// Module returns a new functools module.
func Module() *core.PyModule { return core.NewModule("functools", members()) }
