package itertools

import (
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
	"math"
)

// itertools. Its iterators are lazy, as in Python, so that endless ones
// work with next(), islice and a loop that breaks; those that call user
// functions (accumulate, takewhile, dropwhile, filterfalse, starmap) run
// them on the consumer's thread as items are taken (core.NewStepIterator),
// so their side effects happen in Python's order. groupby alone is eager.

// memberFuncs are the module's functions by name; chain, a type, is
// added by members.
var memberFuncs = map[string]core.BuiltinFn{
	"accumulate":                    accumulate,
	"combinations":                  combinations,
	"combinations_with_replacement": combinationsWithReplacement,
	"compress":                      compress,
	"count":                         count,
	"cycle":                         cycle,
	"dropwhile":                     dropwhile,
	"filterfalse":                   filterfalse,
	"groupby":                       groupby,
	"islice":                        islice,
	"pairwise":                      pairwise,
	"permutations":                  permutations,
	"product":                       product,
	"repeat":                        repeat,
	"starmap":                       starmap,
	"takewhile":                     takewhile,
	"tee":                           tee,
	"zip_longest":                   zipLongest,
}

func members() starlark.StringDict {
	m := starlark.StringDict{"chain": chainType()}
	for name, f := range memberFuncs {
		m[name] = core.Fn(name, f)
	}
	return m
}

// chainType is itertools.chain, a type so that chain.from_iterable is
// its attribute.
func chainType() *core.Type {
	chain := &core.Type{PyName: "itertools.chain", Base: core.TypeObject}
	chain.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return chainOf(th, core.SliceIterator("tuple_iterator", args))
	}
	chain.Attrs = map[string]starlark.Value{"from_iterable": core.Fn("from_iterable", chainFromIterable)}
	return chain
}

func chainFromIterable(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	if err := starlark.UnpackPositionalArgs("from_iterable", args, kwargs, 1, &it); err != nil {
		return nil, err
	}
	src, err := core.PyIter(th, it)
	if err != nil {
		return nil, err
	}
	return chainOf(th, src)
}

func count(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var start, step starlark.Value = starlark.MakeInt(0), starlark.MakeInt(1)
	if err := starlark.UnpackArgs("count", args, kwargs, "start?", &start, "step?", &step); err != nil {
		return nil, err
	}
	cur := start
	return core.NewIterator("itertools.count", func() (starlark.Value, bool, error) {
		v := cur
		next, err := addValues(cur, step)
		cur = next
		return v, err == nil, err
	}).Paced(th), nil
}

func cycle(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	if err := starlark.UnpackPositionalArgs("cycle", args, kwargs, 1, &it); err != nil {
		return nil, err
	}
	vals, err := core.Collect(th, it)
	if err != nil {
		return nil, err
	}
	i := 0
	return core.NewIterator("itertools.cycle", func() (starlark.Value, bool, error) {
		if len(vals) == 0 {
			return nil, false, nil
		}
		i++
		return vals[(i-1)%len(vals)], true, nil
	}).Paced(th), nil
}

func repeat(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, n starlark.Value
	if err := starlark.UnpackArgs("repeat", args, kwargs, "object", &x, "times?", &n); err != nil {
		return nil, err
	}
	times := -1 // endless
	if n != nil {
		t, err := core.IndexInt(n)
		if err != nil {
			return nil, err
		}
		times = max(t, 0) // a negative count repeats nothing, as in CPython
	}
	return core.NewIterator("itertools.repeat", func() (starlark.Value, bool, error) {
		if times == 0 {
			return nil, false, nil
		}
		if times > 0 {
			times--
		}
		return x, true, nil
	}).Paced(th), nil
}

func islice(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 2 || len(args) > 4 {
		return nil, core.Errorf(pyexc.TypeError, "islice expected 2 to 4 arguments")
	}
	src, err := core.PyIter(th, args[0])
	if err != nil {
		return nil, err
	}
	start, stop, step := 0, -1, 1
	// CPython's errors name the argument: any bad stop (a non-int
	// included) is a ValueError about the stop, and so on.
	const (
		stopMsg  = "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize."
		startMsg = "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize."
		stepMsg  = "Step for islice() must be a positive integer or None."
	)
	if len(args) == 2 {
		if stop, err = isliceArg(args[1], -1, 0, stopMsg); err != nil {
			return nil, err
		}
	} else {
		if start, err = isliceArg(args[1], 0, 0, startMsg); err != nil {
			return nil, err
		}
		if stop, err = isliceArg(args[2], -1, 0, stopMsg); err != nil {
			return nil, err
		}
		if len(args) == 4 {
			if step, err = isliceArg(args[3], 1, 1, stepMsg); err != nil {
				return nil, err
			}
		}
	}
	i, next := 0, start
	return core.NewIterator("itertools.islice", func() (starlark.Value, bool, error) {
		for stop < 0 || next < stop {
			v, ok, err := src.Next()
			if !ok || err != nil {
				return nil, false, err
			}
			i++
			if i-1 == next {
				next += step
				return v, true, nil
			}
		}
		return nil, false, nil
	}), nil
}

func zipLongest(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fill starlark.Value = starlark.None
	if err := starlark.UnpackArgs("zip_longest", nil, kwargs, "fillvalue?", &fill); err != nil {
		return nil, err
	}
	srcs := make([]*core.Iterator, len(args))
	for i, a := range args {
		it, err := core.PyIter(th, a)
		if err != nil {
			return nil, err
		}
		srcs[i] = it
	}
	return core.NewIterator("itertools.zip_longest", func() (starlark.Value, bool, error) {
		t := make(starlark.Tuple, len(srcs))
		any := false
		for i, s := range srcs {
			v, ok, err := s.Next()
			if err != nil {
				return nil, false, err
			}
			if ok {
				any = true
				t[i] = v
			} else {
				t[i] = fill
			}
		}
		return t, any, nil
	}), nil
}

func pairwise(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	if err := starlark.UnpackPositionalArgs("pairwise", args, kwargs, 1, &it); err != nil {
		return nil, err
	}
	src, err := core.PyIter(th, it)
	if err != nil {
		return nil, err
	}
	prev, ok, err := src.Next()
	return core.NewIterator("itertools.pairwise", func() (starlark.Value, bool, error) {
		if !ok || err != nil {
			return nil, false, err
		}
		v, more, e := src.Next()
		if !more || e != nil {
			ok = false
			return nil, false, e
		}
		t := starlark.Tuple{prev, v}
		prev = v
		return t, true, nil
	}), nil
}

func product(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	repeat := 1
	if err := starlark.UnpackArgs("product", nil, kwargs, "repeat?", &repeat); err != nil {
		return nil, err
	}
	var pools [][]starlark.Value
	for _, a := range args {
		vals, err := core.Collect(th, a)
		if err != nil {
			return nil, err
		}
		pools = append(pools, vals)
	}
	var all [][]starlark.Value
	for r := 0; r < repeat; r++ {
		all = append(all, pools...)
	}
	idx := make([]int, len(all))
	done := false
	for _, p := range all {
		if len(p) == 0 {
			done = true
		}
	}
	return core.NewIterator("itertools.product", func() (starlark.Value, bool, error) {
		if done {
			return nil, false, nil
		}
		t := make(starlark.Tuple, len(all))
		for i, p := range all {
			t[i] = p[idx[i]]
		}
		// Advance the odometer, rightmost fastest.
		i := len(idx) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(all[i]) {
				break
			}
			idx[i] = 0
		}
		done = i < 0
		return t, true, nil
	}), nil
}

func permutations(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it, rv starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs("permutations", args, kwargs, "iterable", &it, "r?", &rv); err != nil {
		return nil, err
	}
	pool, err := core.Collect(th, it)
	if err != nil {
		return nil, err
	}
	n, r := len(pool), len(pool)
	if rv != starlark.None {
		if r, err = core.IndexInt(rv); err != nil {
			return nil, err
		}
		if r < 0 {
			return nil, core.Errorf(pyexc.ValueError, "r must be non-negative")
		}
	}
	if err := allocIndices(th, r); err != nil {
		return nil, err
	}
	// CPython's algorithm, so the order matches.
	indices := make([]int, n)
	for i := range indices {
		indices[i] = i
	}
	cycles := make([]int, r)
	for i := range cycles {
		cycles[i] = n - i
	}
	first, done := true, r > n
	return core.NewIterator("itertools.permutations", func() (starlark.Value, bool, error) {
		if done {
			return nil, false, nil
		}
		if !first {
			i := r - 1
			for ; i >= 0; i-- {
				cycles[i]--
				if cycles[i] == 0 {
					x := indices[i]
					copy(indices[i:], indices[i+1:])
					indices[n-1] = x
					cycles[i] = n - i
				} else {
					j := cycles[i]
					indices[i], indices[n-j] = indices[n-j], indices[i]
					break
				}
			}
			if i < 0 {
				done = true
				return nil, false, nil
			}
		}
		first = false
		t := make(starlark.Tuple, r)
		for k := 0; k < r; k++ {
			t[k] = pool[indices[k]]
		}
		return t, true, nil
	}), nil
}

// allocIndices charges the r indices an iterator of r-tuples keeps, as
// CPython allocates them even when there is nothing to yield: a huge r is
// a MemoryError there too.
func allocIndices(th *starlark.Thread, r int) error {
	if r > math.MaxInt64/16 {
		return core.Errorf(pyexc.MemoryError, "")
	}
	return core.Alloc(th, int64(r)*16)
}

// isliceArg is an optional argument of islice: def when None, else an
// int of at least min, or a ValueError saying msg.
func isliceArg(v starlark.Value, def, min int, msg string) (int, error) {
	if v == starlark.None {
		return def, nil
	}
	n, err := core.IndexInt(v)
	if err != nil || n < min {
		return 0, core.Errorf(pyexc.ValueError, "%s", msg)
	}
	return n, nil
}

func combinations(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return combine(th, fn.Name(), false, args, kwargs)
}

func combinationsWithReplacement(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return combine(th, fn.Name(), true, args, kwargs)
}

// combine is combinations(iterable, r) and, when replace is set,
// combinations_with_replacement, in CPython's order.
func combine(th *starlark.Thread, name string, replace bool, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	var r int
	if err := starlark.UnpackArgs(name, args, kwargs, "iterable", &it, "r", &r); err != nil {
		return nil, err
	}
	if r < 0 {
		return nil, core.Errorf(pyexc.ValueError, "r must be non-negative")
	}
	pool, err := core.Collect(th, it)
	if err != nil {
		return nil, err
	}
	n := len(pool)
	if err := allocIndices(th, r); err != nil {
		return nil, err
	}
	idx := make([]int, r)
	if !replace {
		for i := range idx {
			idx[i] = i
		}
	}
	done := (!replace && r > n) || (replace && n == 0 && r > 0)
	first := true
	return core.NewIterator("itertools."+name, func() (starlark.Value, bool, error) {
		if done {
			return nil, false, nil
		}
		if !first {
			i := r - 1
			if replace {
				for ; i >= 0 && idx[i] == n-1; i-- {
				}
				if i < 0 {
					done = true
					return nil, false, nil
				}
				v := idx[i] + 1
				for j := i; j < r; j++ {
					idx[j] = v
				}
			} else {
				for ; i >= 0 && idx[i] == i+n-r; i-- {
				}
				if i < 0 {
					done = true
					return nil, false, nil
				}
				idx[i]++
				for j := i + 1; j < r; j++ {
					idx[j] = idx[j-1] + 1
				}
			}
		}
		first = false
		t := make(starlark.Tuple, r)
		for k, i := range idx {
			t[k] = pool[i]
		}
		return t, true, nil
	}), nil
}

func accumulate(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it, f, initial starlark.Value = nil, starlark.None, starlark.None
	if err := starlark.UnpackArgs("accumulate", args, kwargs, "iterable", &it, "func?", &f, "initial?", &initial); err != nil {
		return nil, err
	}
	src, err := core.PyIter(th, it)
	if err != nil {
		return nil, err
	}
	var acc starlark.Value
	if initial != starlark.None {
		acc = initial
	}
	first := acc != nil
	return core.NewStepIterator(th, "itertools.accumulate", func(th *starlark.Thread) (starlark.Value, bool, error) {
		if first {
			first = false
			return acc, true, nil
		}
		v, ok, err := src.NextOn(th)
		if err != nil || !ok {
			return nil, false, err
		}
		switch {
		case acc == nil:
			acc = v
		case f == starlark.None:
			if acc, err = addValues(acc, v); err != nil {
				return nil, false, err
			}
		default:
			if acc, err = starlark.Call(th, f, starlark.Tuple{acc, v}, nil); err != nil {
				return nil, false, err
			}
		}
		return acc, true, nil
	}), nil
}

func takewhile(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return filterWhile(th, fn.Name(), true, args, kwargs)
}

func dropwhile(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return filterWhile(th, fn.Name(), false, args, kwargs)
}

// filterWhile is takewhile(pred, iterable) when take is set, dropwhile
// otherwise.
func filterWhile(th *starlark.Thread, name string, take bool, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f, it starlark.Value
	if err := starlark.UnpackPositionalArgs(name, args, kwargs, 2, &f, &it); err != nil {
		return nil, err
	}
	src, err := core.PyIter(th, it)
	if err != nil {
		return nil, err
	}
	dropping, done := true, false
	return core.NewStepIterator(th, "itertools."+name, func(th *starlark.Thread) (starlark.Value, bool, error) {
		for n := 1; !done; n++ {
			if n%core.CheckEvery == 0 {
				if err := core.Interrupted(th); err != nil {
					return nil, false, err
				}
			}
			v, ok, err := src.NextOn(th)
			if err != nil || !ok {
				return nil, false, err
			}
			if !take && !dropping {
				return v, true, nil
			}
			r, err := starlark.Call(th, f, starlark.Tuple{v}, nil)
			if err != nil {
				return nil, false, err
			}
			t, err := core.Truth(th, r)
			if err != nil {
				return nil, false, err
			}
			switch {
			case take && t:
				return v, true, nil
			case take:
				done = true
			case !t:
				dropping = false
				return v, true, nil
			}
		}
		return nil, false, nil
	}), nil
}

func filterfalse(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f, it starlark.Value
	if err := starlark.UnpackPositionalArgs("filterfalse", args, kwargs, 2, &f, &it); err != nil {
		return nil, err
	}
	src, err := core.PyIter(th, it)
	if err != nil {
		return nil, err
	}
	return core.NewFilterIterator(th, "itertools.filterfalse", f, src, false), nil
}

func starmap(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f, it starlark.Value
	if err := starlark.UnpackPositionalArgs("starmap", args, kwargs, 2, &f, &it); err != nil {
		return nil, err
	}
	src, err := core.PyIter(th, it)
	if err != nil {
		return nil, err
	}
	return core.NewStepIterator(th, "itertools.starmap", func(th *starlark.Thread) (starlark.Value, bool, error) {
		v, ok, err := src.NextOn(th)
		if err != nil || !ok {
			return nil, false, err
		}
		a, err := core.Collect(th, v)
		if err != nil {
			return nil, false, err
		}
		r, err := starlark.Call(th, f, starlark.Tuple(a), nil)
		if err != nil {
			return nil, false, err
		}
		return r, true, nil
	}), nil
}

func compress(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var data, sel starlark.Value
	if err := starlark.UnpackArgs("compress", args, kwargs, "data", &data, "selectors", &sel); err != nil {
		return nil, err
	}
	d, err := core.PyIter(th, data)
	if err != nil {
		return nil, err
	}
	s, err := core.PyIter(th, sel)
	if err != nil {
		return nil, err
	}
	return core.NewIterator("itertools.compress", func() (starlark.Value, bool, error) {
		for {
			v, ok, err := d.Next()
			if !ok || err != nil {
				return nil, false, err
			}
			b, ok, err := s.Next()
			if !ok || err != nil {
				return nil, false, err
			}
			if t, err := core.Truth(nil, b); err != nil || t {
				return v, err == nil, err
			}
		}
	}), nil
}

func groupby(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it, key starlark.Value = nil, starlark.None
	if err := starlark.UnpackArgs("groupby", args, kwargs, "iterable", &it, "key?", &key); err != nil {
		return nil, err
	}
	// Eager: every group's elements are held, each charged its
	// slot, each group a tuple and an iterator.
	out, err := core.NewGather(th, 0)
	if err != nil {
		return nil, err
	}
	var curKey starlark.Value
	var group []starlark.Value
	flush := func() error {
		if group != nil {
			return out.Add(starlark.Tuple{curKey, core.SliceIterator("itertools._grouper", group)})
		}
		return nil
	}
	err = core.ForEach(th, it, func(v starlark.Value) error {
		k := v
		if key != starlark.None {
			r, err := starlark.Call(th, key, starlark.Tuple{v}, nil)
			if err != nil {
				return err
			}
			k = r
		}
		if group != nil {
			if eq, err := core.Equal(k, curKey); err != nil {
				return err
			} else if eq {
				group = append(group, v)
				return out.Charger.Add(2*core.SlotSize + core.ValueSize(v))
			}
		}
		if err := flush(); err != nil {
			return err
		}
		curKey, group = k, []starlark.Value{v}
		return out.Charger.Add(groupSize + core.ValueSize(k) + core.ValueSize(v))
	})
	if err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	vals, err := out.Done()
	return core.SliceIterator("itertools.groupby", vals), err
}

func tee(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	n := 2
	if err := starlark.UnpackPositionalArgs("tee", args, kwargs, 1, &it, &n); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, core.Errorf(pyexc.ValueError, "n must be >= 0")
	}
	src, err := core.PyIter(th, it)
	if err != nil {
		return nil, err
	}
	if err := core.Alloc(th, int64(n)*core.ElemSize); err != nil {
		return nil, err
	}
	d := &teeData{src: src, pos: make([]int, n)}
	out := make(starlark.Tuple, n)
	for i := range out {
		out[i] = core.NewStepIterator(th, "itertools._tee", func(th *starlark.Thread) (starlark.Value, bool, error) {
			return d.next(th, i)
		})
	}
	return out, nil
}

// teeData is what the iterators of one tee() share: the source, consumed
// lazily (tee of an endless iterator works), and the items some iterator
// has read and another has not yet, from position base on.
type teeData struct {
	src  *core.Iterator
	buf  []starlark.Value // a window of arr
	arr  []starlark.Value
	base int   // position of buf[0]
	pos  []int // each iterator's next position
	done bool
}

func (d *teeData) next(th *starlark.Thread, i int) (starlark.Value, bool, error) {
	p := d.pos[i]
	if p-d.base >= len(d.buf) {
		if d.done {
			return nil, false, nil
		}
		v, ok, err := d.src.NextOn(th)
		if err != nil || !ok {
			// An error goes to the iterator that asked; the source is
			// finished for all, as a generator that raised is.
			d.done = true
			return nil, false, err
		}
		if len(d.buf) == cap(d.buf) {
			if cap(d.arr) > 0 && len(d.buf) <= cap(d.arr)/2 {
				// Read items left room at the front: move there.
				n := copy(d.arr, d.buf)
				clear(d.arr[n:])
				d.buf = d.arr[:n]
			} else {
				// A larger array, charged before it is made.
				c := 2*len(d.buf) + 8
				if err := core.Alloc(th, int64(c)*core.ElemSize); err != nil {
					return nil, false, err
				}
				d.arr = make([]starlark.Value, c)
				d.buf = d.arr[:copy(d.arr, d.buf)]
			}
		}
		d.buf = append(d.buf, v)
	}
	v := d.buf[p-d.base]
	d.pos[i] = p + 1
	if p == d.base {
		// The oldest item: drop what every iterator has read.
		low := d.pos[0]
		for _, q := range d.pos[1:] {
			low = min(low, q)
		}
		if k := low - d.base; k > 0 {
			clear(d.buf[:k])
			d.buf = d.buf[k:]
			d.base = low
		}
	}
	return v, true, nil
}

func chainOf(th *starlark.Thread, its *core.Iterator) (starlark.Value, error) {
	var cur *core.Iterator
	return core.NewIterator("itertools.chain", func() (starlark.Value, bool, error) {
		for {
			if cur != nil {
				v, ok, err := cur.Next()
				if err != nil {
					return nil, false, err
				}
				if ok {
					return v, true, nil
				}
			}
			next, ok, err := its.Next()
			if !ok || err != nil {
				return nil, false, err
			}
			if cur, err = core.PyIter(th, next); err != nil {
				return nil, false, err
			}
		}
	}), nil
}

func addValues(a, b starlark.Value) (starlark.Value, error) {
	a, b = core.Numeric(a), core.Numeric(b)
	r, err := starlark.Binary(syntax.PLUS, a, b)
	if err != nil {
		return nil, core.BinaryError("+", a, b, err)
	}
	return r, nil
}

// groupSize is a group of groupby beyond its elements: its (key, group)
// tuple, the grouper iterator and its closure.
const groupSize = core.TupleHeaderSize + 2*core.SlotSize + 160

// Module returns a new itertools module.
func Module() *core.PyModule { return core.NewModule("itertools", members()) }
