package heapq

import (
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// heapq. The sifts are CPython's (_heapqmodule.c) step for step, so a
// heap holds its items in the same order as in CPython after every
// operation (programs print heaps), and the same comparisons, all with <,
// are made in the same order (user __lt__ methods may print or raise).
// nlargest, nsmallest and merge follow heapq.py's algorithms for the same
// reason. merge runs eagerly: it compares items, which can raise, and an
// error raised inside a lazy iterator would silently end the caller's
// loop (see Iterator.Iterate).

// heapData is what the sifts work on: a user's list or a heap private
// to nlargest, nsmallest or merge.
type heapData interface {
	Len() int
	// Less reports whether item i is smaller than item j in the heap's
	// order (larger, for a max-heap).
	Less(i, j int) (bool, error)
	Swap(i, j int) error
}

// listHeap is a user's list as a heap. CPython refuses to continue when a
// comparison changed the list's size; so does Less.
type listHeap struct {
	th   *starlark.Thread
	l    *starlark.List
	size int
	max  bool
	n    int // comparisons made, for the deadline checks
}

func newListHeap(th *starlark.Thread, l *starlark.List, max bool) *listHeap {
	return &listHeap{th: th, l: l, size: l.Len(), max: max}
}

func (h *listHeap) Len() int { return h.l.Len() }

func (h *listHeap) Less(i, j int) (bool, error) {
	if h.n++; h.n%core.CheckEvery == 0 {
		if err := core.Interrupted(h.th); err != nil {
			return false, err
		}
	}
	a, b := h.l.Index(i), h.l.Index(j)
	if h.max {
		a, b = b, a
	}
	lt, err := core.PyLess(a, b)
	if err != nil {
		return false, err
	}
	if h.l.Len() != h.size {
		return false, core.Errorf(pyexc.RuntimeError, "list changed size during iteration")
	}
	return lt, nil
}

func (h *listHeap) Swap(i, j int) error {
	a, b := h.l.Index(i), h.l.Index(j)
	if err := h.l.SetIndex(i, b); err != nil {
		return err
	}
	return h.l.SetIndex(j, a)
}

// siftDown is CPython's siftdown: the item at pos moves towards the root
// (startpos) while it is smaller than its parent.
func siftDown(h heapData, startpos, pos int) error {
	for pos > startpos {
		parent := (pos - 1) >> 1
		lt, err := h.Less(pos, parent)
		if err != nil {
			return err
		}
		if !lt {
			break
		}
		if err := h.Swap(pos, parent); err != nil {
			return err
		}
		pos = parent
	}
	return nil
}

// siftUp is CPython's siftup: the smaller child moves up until pos is a
// leaf, then the item that was at pos sifts down to its place.
func siftUp(h heapData, pos int) error {
	end := h.Len()
	start := pos
	if pos >= end {
		return core.Errorf(pyexc.IndexError, "list index out of range")
	}
	limit := end >> 1
	for pos < limit {
		child := 2*pos + 1
		if child+1 < end {
			lt, err := h.Less(child, child+1)
			if err != nil {
				return err
			}
			if !lt {
				child++
			}
		}
		if err := h.Swap(child, pos); err != nil {
			return err
		}
		pos = child
	}
	return siftDown(h, start, pos)
}

// heapify is CPython's heapify_internal, including the cache-friendly
// order it uses for heaps of more than 2500 items (same result, same
// comparisons, in another order).
func heapify(h heapData) error {
	n := h.Len()
	if n <= 2500 {
		for i := n/2 - 1; i >= 0; i-- {
			if err := siftUp(h, i); err != nil {
				return err
			}
		}
		return nil
	}
	m := n >> 1
	leftmost := keepTopBit(m+1) - 1
	mhalf := m >> 1
	run := func(from, to int) error {
		for i := from; i >= to; i-- {
			for j := i; ; j >>= 1 {
				if err := siftUp(h, j); err != nil {
					return err
				}
				if j&1 == 0 {
					break
				}
			}
		}
		return nil
	}
	if err := run(leftmost-1, mhalf); err != nil {
		return err
	}
	return run(m-1, leftmost)
}

func keepTopBit(n int) int {
	i := 0
	for n > 1 {
		n >>= 1
		i++
	}
	return n << i
}

// heapList checks the heap argument as CPython does.
func heapList(fname string, v starlark.Value, argument string) (*starlark.List, error) {
	l, ok := v.(*starlark.List)
	if !ok {
		return nil, core.Errorf(pyexc.TypeError, "%s() %s must be list, not %s", fname, argument, core.TypeName(v))
	}
	return l, nil
}

// heapArgs checks the positional arguments of the C functions of _heapq.
func heapArgs(name string, args starlark.Tuple, kwargs []starlark.Tuple, n int) error {
	if len(kwargs) > 0 {
		return core.Errorf(pyexc.TypeError, "_heapq.%s() takes no keyword arguments", name)
	}
	if len(args) != n {
		if n == 1 {
			return core.Errorf(pyexc.TypeError, "_heapq.%s() takes exactly one argument (%d given)", name, len(args))
		}
		return core.Errorf(pyexc.TypeError, "%s expected %d arguments, got %d", name, n, len(args))
	}
	return nil
}

// popLast removes and returns the last item of l.
func popLast(th *starlark.Thread, l *starlark.List) (starlark.Value, error) {
	return core.StarlarkMethod(th, l, "pop")
}

func heapPush(th *starlark.Thread, l *starlark.List, item starlark.Value) error {
	if l.Len()%1024 == 1023 {
		if err := core.Alloc(th, 1024*core.ElemSize); err != nil {
			return err
		}
	}
	if err := l.Append(item); err != nil {
		return err
	}
	return siftDown(newListHeap(th, l, false), 0, l.Len()-1)
}

func heapPop(th *starlark.Thread, l *starlark.List, max bool) (starlark.Value, error) {
	if l.Len() == 0 {
		return nil, core.Errorf(pyexc.IndexError, "index out of range")
	}
	last, err := popLast(th, l)
	if err != nil {
		return nil, err
	}
	if l.Len() == 0 {
		return last, nil
	}
	top := l.Index(0)
	if err := l.SetIndex(0, last); err != nil {
		return nil, err
	}
	return top, siftUp(newListHeap(th, l, max), 0)
}

func heapReplace(th *starlark.Thread, l *starlark.List, item starlark.Value, max bool) (starlark.Value, error) {
	if l.Len() == 0 {
		return nil, core.Errorf(pyexc.IndexError, "index out of range")
	}
	top := l.Index(0)
	if err := l.SetIndex(0, item); err != nil {
		return nil, err
	}
	return top, siftUp(newListHeap(th, l, max), 0)
}

func members() starlark.StringDict {
	m := starlark.StringDict{
		"heappush": core.Fn("heappush", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := heapArgs("heappush", args, kwargs, 2); err != nil {
				return nil, err
			}
			l, err := heapList("heappush", args[0], "argument 1")
			if err != nil {
				return nil, err
			}
			return starlark.None, heapPush(th, l, args[1])
		}),
		"heappop": core.Fn("heappop", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := heapArgs("heappop", args, kwargs, 1); err != nil {
				return nil, err
			}
			l, err := heapList("heappop", args[0], "argument")
			if err != nil {
				return nil, err
			}
			return heapPop(th, l, false)
		}),
		"heapify": core.Fn("heapify", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := heapArgs("heapify", args, kwargs, 1); err != nil {
				return nil, err
			}
			l, err := heapList("heapify", args[0], "argument")
			if err != nil {
				return nil, err
			}
			return starlark.None, heapify(newListHeap(th, l, false))
		}),
		"heapreplace": core.Fn("heapreplace", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := heapArgs("heapreplace", args, kwargs, 2); err != nil {
				return nil, err
			}
			l, err := heapList("heapreplace", args[0], "argument 1")
			if err != nil {
				return nil, err
			}
			return heapReplace(th, l, args[1], false)
		}),
		"heappushpop": core.Fn("heappushpop", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := heapArgs("heappushpop", args, kwargs, 2); err != nil {
				return nil, err
			}
			l, err := heapList("heappushpop", args[0], "argument 1")
			if err != nil {
				return nil, err
			}
			item := args[1]
			if l.Len() == 0 {
				return item, nil
			}
			lt, err := core.PyLess(l.Index(0), item)
			if err != nil || !lt {
				return item, err
			}
			return heapReplace(th, l, item, false)
		}),
		"nsmallest": core.Fn("nsmallest", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return nBest(th, "nsmallest", args, kwargs, false)
		}),
		"nlargest": core.Fn("nlargest", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return nBest(th, "nlargest", args, kwargs, true)
		}),
		"merge": core.Fn("merge", heapMerge),
		// The max-heap functions heapq.py uses, which programs call too.
		"_heapify_max": core.Fn("_heapify_max", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := heapArgs("_heapify_max", args, kwargs, 1); err != nil {
				return nil, err
			}
			l, err := heapList("_heapify_max", args[0], "argument")
			if err != nil {
				return nil, err
			}
			return starlark.None, heapify(newListHeap(th, l, true))
		}),
		"_heappop_max": core.Fn("_heappop_max", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := heapArgs("_heappop_max", args, kwargs, 1); err != nil {
				return nil, err
			}
			l, err := heapList("_heappop_max", args[0], "argument")
			if err != nil {
				return nil, err
			}
			return heapPop(th, l, true)
		}),
		"_heapreplace_max": core.Fn("_heapreplace_max", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := heapArgs("_heapreplace_max", args, kwargs, 2); err != nil {
				return nil, err
			}
			l, err := heapList("_heapreplace_max", args[0], "argument 1")
			if err != nil {
				return nil, err
			}
			return heapReplace(th, l, args[1], true)
		}),
	}
	return m
}

// sliceHeap is a heap private to nlargest and nsmallest.
type sliceHeap struct {
	th    *starlark.Thread
	items []starlark.Value
	max   bool
	n     int
}

func (h *sliceHeap) Len() int { return len(h.items) }

func (h *sliceHeap) Less(i, j int) (bool, error) {
	if h.n++; h.n%core.CheckEvery == 0 {
		if err := core.Interrupted(h.th); err != nil {
			return false, err
		}
	}
	if h.max {
		i, j = j, i
	}
	return core.PyLess(h.items[i], h.items[j])
}

func (h *sliceHeap) Swap(i, j int) error {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	return nil
}

// nBest is heapq.py's nsmallest (largest false) and nlargest: a heap of
// the n best (key, order, item) seen so far, whose worst is replaced when
// a better item arrives; ties keep the items' original order.
func nBest(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple, largest bool) (starlark.Value, error) {
	var nv, iterable starlark.Value
	var key starlark.Value = starlark.None
	if err := starlark.UnpackArgs(name, args, kwargs, "n", &nv, "iterable", &iterable, "key?", &key); err != nil {
		return nil, err
	}
	hasKey := key != starlark.None
	// n == 1 is min() or max().
	if eq, err := core.Equal(nv, starlark.MakeInt(1)); err == nil && eq {
		kw := []starlark.Tuple{{starlark.String("default"), starlark.None}}
		if hasKey {
			kw = append(kw, starlark.Tuple{starlark.String("key"), key})
		}
		best := core.PyMin
		if largest {
			best = core.PyMax
		}
		// A sentinel default tells an empty iterable from a None item.
		sentinel := &core.Singleton{Name: "sentinel"}
		kw[0][1] = sentinel
		src, err := core.PyIter(th, iterable)
		if err != nil {
			return nil, err
		}
		v, err := best(th, nil, starlark.Tuple{src}, kw)
		if err != nil {
			return nil, err
		}
		if v == starlark.Value(sentinel) {
			return starlark.NewList(nil), nil
		}
		return starlark.NewList([]starlark.Value{v}), nil
	}
	// When n covers the whole sized iterable, sorting is the answer.
	if size, ok, err := sizeOf(th, iterable); err != nil {
		return nil, err
	} else if ok {
		ge, err := starlark.Compare(syntax.GE, core.Numeric(nv), starlark.MakeInt(size))
		if err != nil {
			return nil, core.Errorf(pyexc.TypeError, "'>=' not supported between instances of '%s' and 'int'", core.TypeName(nv))
		}
		if ge {
			n, err := core.SliceIndex(nv)
			if err != nil {
				return nil, err
			}
			vals, err := core.Collect(th, iterable)
			if err != nil {
				return nil, err
			}
			if err := core.SortValues(th, vals, key, largest); err != nil {
				return nil, err
			}
			return starlark.NewList(vals[:min(n, len(vals))]), nil
		}
	}
	n, err := core.IndexInt(nv)
	if err != nil {
		return nil, err
	}
	src, err := core.PyIter(th, iterable)
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return starlark.NewList(nil), nil
	}
	keyOf := func(v starlark.Value) (starlark.Value, error) {
		if !hasKey {
			return v, nil
		}
		return starlark.Call(th, key, starlark.Tuple{v}, nil)
	}
	entry := func(k starlark.Value, order int, v starlark.Value) starlark.Value {
		if hasKey {
			return starlark.Tuple{k, starlark.MakeInt(order), v}
		}
		return starlark.Tuple{k, starlark.MakeInt(order)}
	}
	// nsmallest keeps a max-heap of its candidates; nlargest a min-heap
	// with decreasing order numbers.
	step := 1
	if largest {
		step = -1
	}
	h := &sliceHeap{th: th, max: !largest}
	order := 0
	// Each candidate: its slot (the heap grows by append: all its arrays
	// together are about five times the last), its entry tuple, and the
	// item, which an iterator may have just made.
	c := core.Charger{Th: th}
	for len(h.items) < n {
		v, ok, err := src.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if err := c.Add(5*core.SlotSize + core.TupleHeaderSize + 3*core.SlotSize + core.ValueSize(v)); err != nil {
			return nil, err
		}
		k, err := keyOf(v)
		if err != nil {
			return nil, err
		}
		h.items = append(h.items, entry(k, order, v))
		order += step
	}
	if len(h.items) == 0 {
		return starlark.NewList(nil), nil
	}
	if err := heapify(h); err != nil {
		return nil, err
	}
	top := h.items[0].(starlark.Tuple)[0]
	for i := 1; ; i++ {
		if i%core.CheckEvery == 0 {
			if err := core.Interrupted(th); err != nil {
				return nil, err
			}
		}
		v, ok, err := src.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		k, err := keyOf(v)
		if err != nil {
			return nil, err
		}
		var better bool
		if largest {
			better, err = core.PyLess(top, k)
		} else {
			better, err = core.PyLess(k, top)
		}
		if err != nil {
			return nil, err
		}
		if better {
			h.items[0] = entry(k, order, v)
			if err := siftUp(h, 0); err != nil {
				return nil, err
			}
			top = h.items[0].(starlark.Tuple)[0]
			order += step
		}
	}
	if err := core.SortValues(th, h.items, starlark.None, largest); err != nil {
		return nil, err
	}
	out := make([]starlark.Value, len(h.items))
	for i, e := range h.items {
		t := e.(starlark.Tuple) // (key, order, item), or (item, order)
		if hasKey {
			out[i] = t[2]
		} else {
			out[i] = t[0]
		}
	}
	return starlark.NewList(out), nil
}

// sizeOf is len(v) for heapq.py's "try: size = len(iterable)": ok is
// false for values without a length.
func sizeOf(th *starlark.Thread, v starlark.Value) (int, bool, error) {
	if s, ok := v.(starlark.String); ok {
		return core.PyLen(string(s)), true, nil
	}
	if l, ok := v.(interface {
		PyLen(th *starlark.Thread) (int, error)
	}); ok {
		if o, ok := v.(*core.Instance); ok && o.Dunder("__len__") == nil {
			return 0, false, nil
		}
		n, err := l.PyLen(th)
		if err != nil {
			if e, ok := err.(*core.Error); ok && (e.Type == pyexc.TypeError.Name() || e.Type == pyexc.AttributeError.Name()) {
				return 0, false, nil
			}
			return 0, false, err
		}
		return n, true, nil
	}
	if n := starlark.Len(v); n >= 0 {
		return n, true, nil
	}
	return 0, false, nil
}

// mergeEntry is one input of merge: heapq.py's [key, order, value, next].
type mergeEntry struct {
	key, value starlark.Value
	order      int
	src        *core.Iterator
}

// mergeHeap compares entries as heapq.py's lists compare: by key, and
// by input order between equal keys.
type mergeHeap struct {
	th      *starlark.Thread
	entries []*mergeEntry
	max     bool
	n       int
}

func (h *mergeHeap) Len() int { return len(h.entries) }

func (h *mergeHeap) Less(i, j int) (bool, error) {
	if h.n++; h.n%core.CheckEvery == 0 {
		if err := core.Interrupted(h.th); err != nil {
			return false, err
		}
	}
	if h.max {
		i, j = j, i
	}
	a, b := h.entries[i], h.entries[j]
	if !core.Identical(a.key, b.key) {
		eq, err := core.Equal(a.key, b.key)
		if err != nil {
			return false, err
		}
		if !eq {
			return core.PyLess(a.key, b.key)
		}
	}
	return a.order < b.order, nil
}

func (h *mergeHeap) Swap(i, j int) error {
	h.entries[i], h.entries[j] = h.entries[j], h.entries[i]
	return nil
}

func (h *mergeHeap) pop() error {
	last := h.entries[len(h.entries)-1]
	h.entries = h.entries[:len(h.entries)-1]
	if len(h.entries) == 0 {
		return nil
	}
	h.entries[0] = last
	return siftUp(h, 0)
}

// heapMerge is heapq.merge(*iterables, key=None, reverse=False).
func heapMerge(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var key starlark.Value = starlark.None
	reverse := false
	for _, kv := range kwargs {
		switch name := string(kv[0].(starlark.String)); name {
		case "key":
			key = kv[1]
		case "reverse":
			reverse = bool(kv[1].Truth())
		default:
			return nil, core.Errorf(pyexc.TypeError, "merge() got an unexpected keyword argument '%s'", name)
		}
	}
	h := &mergeHeap{th: th, max: reverse}
	direction := 1
	if reverse {
		direction = -1
	}
	keyOf := func(v starlark.Value) (starlark.Value, error) {
		if key == starlark.None {
			return v, nil
		}
		return starlark.Call(th, key, starlark.Tuple{v}, nil)
	}
	for order, it := range args {
		src, err := core.PyIter(th, it)
		if err != nil {
			return nil, err
		}
		v, ok, err := src.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		k, err := keyOf(v)
		if err != nil {
			return nil, err
		}
		h.entries = append(h.entries, &mergeEntry{key: k, value: v, order: order * direction, src: src})
	}
	if err := heapify(h); err != nil {
		return nil, err
	}
	// Eager: the merged items (which iterators may have just made) are
	// held and charged (gather).
	out, err := core.NewGather(th, 0)
	if err != nil {
		return nil, err
	}
	emit := func(v starlark.Value) error {
		if len(out.Vals)%core.CheckEvery == core.CheckEvery-1 {
			if err := core.Interrupted(th); err != nil {
				return err
			}
		}
		return out.Add(v)
	}
	for len(h.entries) > 1 {
		s := h.entries[0]
		if err := emit(s.value); err != nil {
			return nil, err
		}
		v, ok, err := s.src.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			if err := h.pop(); err != nil {
				return nil, err
			}
			continue
		}
		if s.key, err = keyOf(v); err != nil {
			return nil, err
		}
		s.value = v
		if err := siftUp(h, 0); err != nil {
			return nil, err
		}
	}
	if len(h.entries) == 1 {
		s := h.entries[0]
		if err := emit(s.value); err != nil {
			return nil, err
		}
		for {
			v, ok, err := s.src.Next()
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			if err := emit(v); err != nil {
				return nil, err
			}
		}
	}
	vals, err := out.Done()
	return core.SliceIterator("generator", vals), err
}

// Module returns a new heapq module.
func Module() *core.PyModule { return core.NewModule("heapq", members()) }
