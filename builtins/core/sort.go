package core

import (
	"math"
	"slices"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Sorting as CPython's list.sort does: stable, by key(x) when key is not
// None, using only <, with reverse=True done by reversing before and after
// an ascending sort (which keeps equal elements in their original order).
// The algorithm follows the shape of CPython's: natural runs (a strictly
// descending run reversed), short runs extended to a minimum length by
// binary insertion, then stable merges. For a consistent order every
// stable sort gives the same result; following CPython's comparisons also
// gives its result where the order is not consistent (a NaN, which
// compares false with everything) for lists shorter than 64, and for
// errors, the first comparison that fails is CPython's there.
//
// Homogeneous keys (ints of 64 bits, floats, ints and floats that floats
// represent exactly, strings) are compared as Go values, without
// go.starlark.net's dispatch; everything else by Python's <. Every sort
// checks the deadline every sortCheckEvery comparisons and stops at the
// first failing comparison.

// sortCheckEvery is how many comparisons a sort makes between checks of
// the deadline.
const sortCheckEvery = 1 << 12

// SortValues sorts vals in place as Python's sorted() does: stable, by
// key(x) when key is not None. On an error vals holds the order reached.
func SortValues(th *starlark.Thread, vals []starlark.Value, key starlark.Value, reverse bool) error {
	n := len(vals)
	if n < 2 {
		return nil
	}
	// The keys, their specialised copies and the merge buffers.
	if err := Alloc(th, int64(n)*(SlotSize+8+8+SlotSize)); err != nil {
		return err
	}
	var keys []starlark.Value
	if key != nil && key != starlark.None {
		keys = make([]starlark.Value, n)
		// The keys are new values (tuples, strings) that only the sort
		// holds, where the engine's walk cannot see them.
		c := Charger{Th: th}
		for i, v := range vals {
			if i%CheckEvery == CheckEvery-1 {
				if err := Interrupted(th); err != nil {
					return err
				}
			}
			k, err := starlark.Call(th, key, starlark.Tuple{v}, nil)
			if err != nil {
				return err
			}
			keys[i] = k
			if err := c.Add(ValueSize(k)); err != nil {
				return err
			}
		}
		if err := c.Flush(); err != nil {
			return err
		}
	}
	if err := Interrupted(th); err != nil {
		return err
	}
	if reverse {
		slices.Reverse(vals)
		slices.Reverse(keys)
	}
	err := sortKeyed(th, vals, keys)
	if reverse {
		slices.Reverse(vals)
	}
	return err
}

// SortList is list.sort(key=key, reverse=reverse) on l. As in CPython
// the list is empty while it is sorted, so that a key function that
// changes it is detected ("list modified during sort"), and on any error
// the list holds the order the sort had reached.
func SortList(th *starlark.Thread, l *starlark.List, key starlark.Value, reverse bool) error {
	vals, err := Collect(th, l)
	if err != nil {
		return err
	}
	if err := l.Clear(); err != nil {
		// Frozen, or iterated over: sort in place, as it was before.
		if err := SortValues(th, vals, key, reverse); err != nil {
			return err
		}
		for i, v := range vals {
			if err := l.SetIndex(i, v); err != nil {
				return err
			}
		}
		return nil
	}
	err = SortValues(th, vals, key, reverse)
	modified := l.Len() != 0
	if modified {
		// What the key function added is dropped, as CPython does.
		if cerr := l.Clear(); cerr != nil {
			return cerr
		}
	}
	for _, v := range vals {
		if aerr := l.Append(v); aerr != nil {
			return aerr
		}
	}
	if err == nil && modified {
		err = Errorf(pyexc.ValueError, "list modified during sort")
	}
	return err
}

// sortKeyed sorts vals by keys (vals themselves when keys is nil),
// ascending and stable, specialised for homogeneous keys.
func sortKeyed(th *starlark.Thread, vals, keys []starlark.Value) error {
	ks := keys
	if ks == nil {
		ks = vals
	}
	kind := homogeneous(ks)
	if err := Interrupted(th); err != nil {
		return err
	}
	switch kind {
	case sortInts:
		if keys == nil {
			if xs, ok := smallInts(vals); ok {
				return sortPlain(th, vals, xs, func(x int64) starlark.Value { return starlark.MakeInt64(x) })
			}
		}
		items := make([]sortItem[int64], len(ks))
		for i, k := range ks {
			items[i].k, _ = k.(starlark.Int).Int64()
			items[i].i = i
		}
		return sortItems(th, items, vals)
	case sortFloats:
		if keys == nil {
			if xs, ok := plainFloats(vals); ok {
				return sortPlain(th, vals, xs, func(x float64) starlark.Value { return starlark.Float(x) })
			}
		}
		items := make([]sortItem[float64], len(ks))
		for i, k := range ks {
			switch k := k.(type) {
			case starlark.Float:
				items[i].k = float64(k)
			case starlark.Int:
				v, _ := k.Int64()
				items[i].k = float64(v)
			}
			items[i].i = i
		}
		// Go's < on floats is Python's: false whenever a NaN is involved.
		return sortItems(th, items, vals)
	case sortStrings:
		if keys == nil {
			xs := make([]string, len(vals))
			for i, v := range vals {
				xs[i] = string(v.(starlark.String))
			}
			return sortPlain(th, vals, xs, func(x string) starlark.Value { return starlark.String(x) })
		}
		items := make([]sortItem[string], len(ks))
		for i, k := range ks {
			items[i].k = string(k.(starlark.String))
			items[i].i = i
		}
		// UTF-8's byte order is the order of code points, Python's.
		return sortItems(th, items, vals)
	}
	var err error
	lt := func(a, b starlark.Value) bool {
		if err != nil {
			return false
		}
		r, e := PyLessOn(th, a, b)
		if e != nil {
			err = e
		}
		return r
	}
	if keys == nil {
		// The keys are the values: sort them once.
		return sortBy(th, vals, nil, lt, &err)
	}
	return sortBy(th, keys, vals, lt, &err)
}

// sortItem is a key of a specialised sort and the index of its value:
// sorting them moves no interface values (whose every write the garbage
// collector's barrier sees).
type sortItem[K int64 | float64 | string] struct {
	k K
	i int
}

// sortItems sorts items by key and puts vals in their order.
func sortItems[K int64 | float64 | string](th *starlark.Thread, items []sortItem[K], vals []starlark.Value) error {
	err := sortBy(th, items, nil, func(a, b sortItem[K]) bool { return a.k < b.k }, nil)
	if _, stop := err.(*Interrupt); stop {
		// The execution ends: no one sees vals again.
		return err
	}
	out := make([]starlark.Value, len(vals))
	for j, it := range items {
		out[j] = vals[it.i]
	}
	copy(vals, out)
	return err
}

type sortKind int

const (
	sortMixed sortKind = iota
	sortInts
	sortFloats
	sortStrings
)

// maxExactFloatInt is the largest magnitude up to which every int is a
// float exactly: ints and floats then compare as floats.
const maxExactFloatInt = 1 << 53

// homogeneous reports the one kind of the keys, or sortMixed.
func homogeneous(ks []starlark.Value) sortKind {
	ints, floats, strs := 0, 0, 0
	bigInts := false
	for _, k := range ks {
		switch k := k.(type) {
		case starlark.Int:
			v, ok := k.Int64()
			if !ok {
				return sortMixed
			}
			if v > maxExactFloatInt || v < -maxExactFloatInt {
				bigInts = true
			}
			ints++
		case starlark.Float:
			floats++
		case starlark.String:
			strs++
		default:
			return sortMixed
		}
	}
	switch n := len(ks); {
	case ints == n:
		return sortInts
	case strs == n:
		return sortStrings
	case ints+floats == n && !bigInts:
		return sortFloats
	}
	return sortMixed
}

// sortBy sorts keys ascending by lt, stable, moving vals (when not nil)
// with them: vals[i] and keys[i] stay together. errp, when not nil, is
// where lt records a failed comparison; the sort stops at the first.
func sortBy[K any](th *starlark.Thread, keys []K, vals []starlark.Value, lt func(a, b K) bool, errp *error) error {
	s := &runSorter[K]{th: th, keys: keys, vals: vals, lt: lt, errp: errp}
	s.sort()
	return s.err
}

type runSorter[K any] struct {
	th    *starlark.Thread
	keys  []K
	vals  []starlark.Value
	lt    func(a, b K) bool
	errp  *error
	err   error
	count int
	runs  []sortRun
	// minGallop adapts to the data: lower while galloping pays.
	minGallop int
	tk        []K              // merge buffer of keys
	tv        []starlark.Value // merge buffer of values
}

// less is lt, counting comparisons to check the deadline.
func (s *runSorter[K]) less(a, b K) bool {
	if s.count++; s.count%sortCheckEvery == 0 && s.err == nil {
		s.err = Interrupted(s.th)
	}
	return s.lt(a, b)
}

// failed reports whether the sort must stop.
func (s *runSorter[K]) failed() bool {
	if s.err == nil && s.errp != nil && *s.errp != nil {
		s.err = *s.errp
	}
	return s.err != nil
}

func (s *runSorter[K]) swap(i, j int) {
	s.keys[i], s.keys[j] = s.keys[j], s.keys[i]
	if s.vals != nil {
		s.vals[i], s.vals[j] = s.vals[j], s.vals[i]
	}
}

func (s *runSorter[K]) reverse(lo, hi int) {
	for hi--; lo < hi; lo, hi = lo+1, hi-1 {
		s.swap(lo, hi)
	}
}

// minRun is CPython's minimum run length for n elements: n below 64,
// otherwise between 32 and 64 so that n/minRun is a power of two or just
// below one.
func minRun(n int) int {
	r := 0
	for n >= 64 {
		r |= n & 1
		n >>= 1
	}
	return n + r
}

func (s *runSorter[K]) sort() {
	n := len(s.keys)
	if n < 2 {
		return
	}
	s.minGallop = minGallop
	minrun := minRun(n)
	for lo := 0; lo < n; {
		run := s.countRun(lo, n)
		if s.failed() {
			return
		}
		if run < minrun {
			force := min(minrun, n-lo)
			s.binaryInsert(lo, lo+force, lo+run)
			if s.failed() {
				return
			}
			run = force
		}
		s.foundNewRun(lo, run)
		if s.failed() {
			return
		}
		s.runs = append(s.runs, sortRun{base: lo, len: run})
		lo += run
	}
	// Merge what is left, the smaller neighbours first.
	for len(s.runs) > 1 {
		i := len(s.runs) - 2
		if i > 0 && s.runs[i-1].len < s.runs[i+1].len {
			i--
		}
		s.mergeAt(i)
		if s.failed() {
			return
		}
	}
}

// countRun is the length of the run starting at lo, reversed in place if
// it is strictly descending, as CPython's count_run.
func (s *runSorter[K]) countRun(lo, hi int) int {
	if lo+1 == hi {
		return 1
	}
	n := 2
	if s.less(s.keys[lo+1], s.keys[lo]) {
		for i := lo + 1; i+1 < hi && s.less(s.keys[i+1], s.keys[i]); i++ {
			n++
		}
		s.reverse(lo, lo+n)
		return n
	}
	for i := lo + 1; i+1 < hi && !s.less(s.keys[i+1], s.keys[i]); i++ {
		n++
	}
	return n
}

// binaryInsert sorts [lo, hi) of which [lo, start) is sorted, by binary
// insertion as CPython's binarysort.
func (s *runSorter[K]) binaryInsert(lo, hi, start int) {
	if lo == start {
		start++
	}
	for ; start < hi; start++ {
		pivot := s.keys[start]
		l, r := lo, start
		for l < r {
			p := l + (r-l)>>1
			if s.less(pivot, s.keys[p]) {
				r = p
			} else {
				l = p + 1
			}
		}
		if s.failed() {
			return
		}
		if l == start {
			continue
		}
		copy(s.keys[l+1:start+1], s.keys[l:start])
		s.keys[l] = pivot
		if s.vals != nil {
			v := s.vals[start]
			copy(s.vals[l+1:start+1], s.vals[l:start])
			s.vals[l] = v
		}
	}
}

// minGallop is where merging starts to gallop: after this many elements
// in a row taken from the same run.
const minGallop = 7

// sortRun is a sorted run waiting to be merged: its start, its length
// and its power, the depth of the node between it and the next run in
// the tree of merges (powersort, which CPython 3.11 uses).
type sortRun struct{ base, len, power int }

// foundNewRun merges the pending runs whose power is greater than that
// of the boundary between the last one and the new run [lo, lo+n2).
func (s *runSorter[K]) foundNewRun(lo, n2 int) {
	if len(s.runs) == 0 {
		return
	}
	last := s.runs[len(s.runs)-1]
	power := powerOf(last.base, last.len, n2, len(s.keys))
	for len(s.runs) > 1 && s.runs[len(s.runs)-2].power > power {
		s.mergeAt(len(s.runs) - 2)
		if s.failed() {
			return
		}
	}
	s.runs[len(s.runs)-1].power = power
}

// powerOf is the power of the boundary between the run [s1, s1+n1) and
// the next run of n2 elements, in a list of n: the first bit in which
// the binary fractions of the two runs' midpoints (relative to n) differ.
func powerOf(s1, n1, n2, n int) int {
	a := 2*s1 + n1 // twice the first midpoint
	b := a + n1 + n2
	power := 0
	for {
		power++
		if a >= n {
			a -= n
			b -= n
		} else if b >= n {
			return power
		}
		a <<= 1
		b <<= 1
	}
}

// mergeAt merges the pending runs i and i+1.
func (s *runSorter[K]) mergeAt(i int) {
	if err := Interrupted(s.th); err != nil {
		s.err = err
		return
	}
	pa, na := s.runs[i].base, s.runs[i].len
	pb, nb := s.runs[i+1].base, s.runs[i+1].len
	s.runs[i].len = na + nb
	if i == len(s.runs)-3 {
		s.runs[i+1] = s.runs[i+2]
	}
	s.runs = s.runs[:len(s.runs)-1]
	// The head of the first run no greater than the second's first
	// element, and the tail of the second no less than the first's last,
	// are in place already.
	k := s.gallopRight(s.keys[pb], s.keys[pa:pa+na], 0)
	if s.failed() {
		return
	}
	pa, na = pa+k, na-k
	if na == 0 {
		return
	}
	nb = s.gallopLeft(s.keys[pa+na-1], s.keys[pb:pb+nb], nb-1)
	if s.failed() || nb <= 0 {
		return
	}
	if na <= nb {
		s.mergeLo(pa, na, pb, nb)
	} else {
		s.mergeHi(pa, na, pb, nb)
	}
}

// gallopLeft is the index at which key goes in the sorted a, to the left
// of equal elements (a[k-1] < key <= a[k]), searched from a[hint]
// outward by doubling steps, then by bisection.
func (s *runSorter[K]) gallopLeft(key K, a []K, hint int) int {
	n := len(a)
	last, ofs := 0, 1
	if s.less(a[hint], key) {
		// a[hint] < key: gallop right, until a[hint+last] < key <= a[hint+ofs].
		maxOfs := n - hint
		for ofs < maxOfs && s.less(a[hint+ofs], key) {
			last = ofs
			ofs = ofs<<1 + 1
		}
		ofs = min(ofs, maxOfs)
		last += hint
		ofs += hint
	} else {
		// key <= a[hint]: gallop left, until a[hint-ofs] < key <= a[hint-last].
		maxOfs := hint + 1
		for ofs < maxOfs && !s.less(a[hint-ofs], key) {
			last = ofs
			ofs = ofs<<1 + 1
		}
		ofs = min(ofs, maxOfs)
		last, ofs = hint-ofs, hint-last
	}
	// a[last] < key <= a[ofs]: bisect between them.
	for last++; last < ofs; {
		m := last + (ofs-last)>>1
		if s.less(a[m], key) {
			last = m + 1
		} else {
			ofs = m
		}
	}
	return ofs
}

// gallopRight is gallopLeft to the right of equal elements (a[k-1] <= key
// < a[k]).
func (s *runSorter[K]) gallopRight(key K, a []K, hint int) int {
	n := len(a)
	last, ofs := 0, 1
	if s.less(key, a[hint]) {
		// key < a[hint]: gallop left, until a[hint-ofs] <= key < a[hint-last].
		maxOfs := hint + 1
		for ofs < maxOfs && s.less(key, a[hint-ofs]) {
			last = ofs
			ofs = ofs<<1 + 1
		}
		ofs = min(ofs, maxOfs)
		last, ofs = hint-ofs, hint-last
	} else {
		// a[hint] <= key: gallop right, until a[hint+last] <= key < a[hint+ofs].
		maxOfs := n - hint
		for ofs < maxOfs && !s.less(key, a[hint+ofs]) {
			last = ofs
			ofs = ofs<<1 + 1
		}
		ofs = min(ofs, maxOfs)
		last += hint
		ofs += hint
	}
	for last++; last < ofs; {
		m := last + (ofs-last)>>1
		if s.less(key, a[m]) {
			ofs = m
		} else {
			last = m + 1
		}
	}
	return ofs
}

// The ways a merge ends.
const (
	mergeDone  = iota // the rest of the saved run goes at dest
	mergeCopy1        // one element of the saved run is left, it goes last (first for mergeHi)
)

// move copies n elements (keys and values) from src (in tk/tv when
// fromTmp) to dst in keys/vals; overlapping ranges are fine.
func (s *runSorter[K]) move(dst, src, n int, fromTmp bool) {
	if fromTmp {
		copy(s.keys[dst:dst+n], s.tk[src:src+n])
		if s.vals != nil {
			copy(s.vals[dst:dst+n], s.tv[src:src+n])
		}
		return
	}
	copy(s.keys[dst:dst+n], s.keys[src:src+n])
	if s.vals != nil {
		copy(s.vals[dst:dst+n], s.vals[src:src+n])
	}
}

// save copies [p, p+n) to the merge buffers.
func (s *runSorter[K]) save(p, n int) {
	s.tk = append(s.tk[:0], s.keys[p:p+n]...)
	if s.vals != nil {
		s.tv = append(s.tv[:0], s.vals[p:p+n]...)
	}
}

// mergeLo merges the runs [pa, pa+na) and [pb, pb+nb) (pb == pa+na, na
// <= nb, a[0] > b[0] and a[na-1] > every b) left to right, with the first
// run saved aside; after minGallop wins in a row by one run it gallops.
func (s *runSorter[K]) mergeLo(pa, na, pb, nb int) {
	s.save(pa, na)
	k, tk := s.keys, s.tk
	dest, ia, ib := pa, 0, pb
	end := func() int {
		s.move(dest, ib, 1, false)
		dest, ib, nb = dest+1, ib+1, nb-1
		if nb == 0 {
			return mergeDone
		}
		if na == 1 {
			return mergeCopy1
		}
		mg := s.minGallop
		for {
			acount, bcount := 0, 0
			for {
				if s.less(k[ib], tk[ia]) {
					s.move(dest, ib, 1, false)
					dest, ib, nb = dest+1, ib+1, nb-1
					bcount, acount = bcount+1, 0
					if nb == 0 {
						return mergeDone
					}
					if bcount >= mg {
						break
					}
				} else {
					s.move(dest, ia, 1, true)
					dest, ia, na = dest+1, ia+1, na-1
					acount, bcount = acount+1, 0
					if na == 1 {
						return mergeCopy1
					}
					if acount >= mg {
						break
					}
				}
				if s.failed() {
					return mergeDone
				}
			}
			mg++
			for {
				if mg > 1 {
					mg--
				}
				s.minGallop = mg
				n := s.gallopRight(k[ib], tk[ia:ia+na], 0)
				if s.failed() {
					return mergeDone
				}
				acount = n
				if n > 0 {
					s.move(dest, ia, n, true)
					dest, ia, na = dest+n, ia+n, na-n
					if na == 1 {
						return mergeCopy1
					}
					if na == 0 {
						return mergeDone
					}
				}
				s.move(dest, ib, 1, false)
				dest, ib, nb = dest+1, ib+1, nb-1
				if nb == 0 {
					return mergeDone
				}
				n = s.gallopLeft(tk[ia], k[ib:ib+nb], 0)
				if s.failed() {
					return mergeDone
				}
				bcount = n
				if n > 0 {
					s.move(dest, ib, n, false)
					dest, ib, nb = dest+n, ib+n, nb-n
					if nb == 0 {
						return mergeDone
					}
				}
				s.move(dest, ia, 1, true)
				dest, ia, na = dest+1, ia+1, na-1
				if na == 1 {
					return mergeCopy1
				}
				if acount < minGallop && bcount < minGallop {
					break
				}
			}
			mg++
			s.minGallop = mg
		}
	}()
	if end == mergeCopy1 {
		// The last element of the saved run goes after the rest of b.
		s.move(dest, ib, nb, false)
		s.move(dest+nb, ia, 1, true)
		return
	}
	if na > 0 {
		s.move(dest, ia, na, true)
	}
}

// mergeHi is mergeLo for na > nb, right to left, with the second run
// saved aside.
func (s *runSorter[K]) mergeHi(pa, na, pb, nb int) {
	s.save(pb, nb)
	k, tk := s.keys, s.tk
	dest, ia, ib := pb+nb-1, pa+na-1, nb-1
	end := func() int {
		s.move(dest, ia, 1, false)
		dest, ia, na = dest-1, ia-1, na-1
		if na == 0 {
			return mergeDone
		}
		if nb == 1 {
			return mergeCopy1
		}
		mg := s.minGallop
		for {
			acount, bcount := 0, 0
			for {
				if s.less(tk[ib], k[ia]) {
					s.move(dest, ia, 1, false)
					dest, ia, na = dest-1, ia-1, na-1
					acount, bcount = acount+1, 0
					if na == 0 {
						return mergeDone
					}
					if acount >= mg {
						break
					}
				} else {
					s.move(dest, ib, 1, true)
					dest, ib, nb = dest-1, ib-1, nb-1
					bcount, acount = bcount+1, 0
					if nb == 1 {
						return mergeCopy1
					}
					if bcount >= mg {
						break
					}
				}
				if s.failed() {
					return mergeDone
				}
			}
			mg++
			for {
				if mg > 1 {
					mg--
				}
				s.minGallop = mg
				n := s.gallopRight(tk[ib], k[pa:pa+na], na-1)
				if s.failed() {
					return mergeDone
				}
				n = na - n
				acount = n
				if n > 0 {
					dest, ia = dest-n, ia-n
					s.move(dest+1, ia+1, n, false)
					na -= n
					if na == 0 {
						return mergeDone
					}
				}
				s.move(dest, ib, 1, true)
				dest, ib, nb = dest-1, ib-1, nb-1
				if nb == 1 {
					return mergeCopy1
				}
				n = s.gallopLeft(k[ia], tk[:nb], nb-1)
				if s.failed() {
					return mergeDone
				}
				n = nb - n
				bcount = n
				if n > 0 {
					dest, ib = dest-n, ib-n
					s.move(dest+1, ib+1, n, true)
					nb -= n
					if nb == 1 {
						return mergeCopy1
					}
					if nb == 0 {
						return mergeDone
					}
				}
				s.move(dest, ia, 1, false)
				dest, ia, na = dest-1, ia-1, na-1
				if na == 0 {
					return mergeDone
				}
				if acount < minGallop && bcount < minGallop {
					break
				}
			}
			mg++
			s.minGallop = mg
		}
	}()
	if end == mergeCopy1 {
		// The first element of the saved run goes before the rest of a.
		dest, ia = dest-na, ia-na
		s.move(dest+1, ia+1, na, false)
		s.move(dest, ib, 1, true)
		return
	}
	if nb > 0 {
		s.move(dest-(nb-1), 0, nb, true)
	}
}

// Sorter sorts a permutation of Keys by Python's < (json's sort_keys).
type Sorter struct {
	Th   *starlark.Thread
	Keys []starlark.Value
	Err  error
}

// MergeSort sorts the indices in idx (stable) by their keys; buf is not
// needed any more and may be nil.
func (s *Sorter) MergeSort(idx, buf []int) {
	keys := make([]starlark.Value, len(idx))
	for i, j := range idx {
		keys[i] = s.Keys[j]
	}
	perm := make([]int64, len(idx))
	for i, j := range idx {
		perm[i] = int64(j)
	}
	var err error
	lt := func(a, b starlark.Value) bool {
		if err != nil {
			return false
		}
		r, e := PyLessOn(s.Th, a, b)
		if e != nil {
			err = e
		}
		return r
	}
	// The permutation rides along as the values' order.
	vals := make([]starlark.Value, len(idx))
	for i := range vals {
		vals[i] = starlark.MakeInt64(perm[i])
	}
	s.Err = sortBy(s.Th, keys, vals, lt, &err)
	for i, v := range vals {
		j, _ := v.(starlark.Int).Int64()
		idx[i] = int(j)
	}
}

// smallInts returns the values of vals, all ints, when they are all of 32
// bits, which go.starlark.net represents without an object: equal ones
// are the same value, with no identity to tell them apart.
func smallInts(vals []starlark.Value) ([]int64, bool) {
	xs := make([]int64, len(vals))
	for i, v := range vals {
		x, ok := v.(starlark.Int).Int64()
		if !ok || x < math.MinInt32 || x > math.MaxInt32 {
			return nil, false
		}
		xs[i] = x
	}
	return xs, true
}

// plainFloats returns the values of vals when they are all floats (not
// ints) that no other float equals without being the same: no NaN, no
// -0.0 (equal to 0.0, printed otherwise).
func plainFloats(vals []starlark.Value) ([]float64, bool) {
	xs := make([]float64, len(vals))
	for i, v := range vals {
		f, ok := v.(starlark.Float)
		if !ok || f != f || (f == 0 && math.Signbit(float64(f))) {
			return nil, false
		}
		xs[i] = float64(f)
	}
	return xs, true
}

// sortPlainBlock is how many values sortPlain sorts between checks of
// the deadline, and the length of its first runs on data without long
// runs.
const sortPlainBlock = 1 << 15

// sortPlainMinRun is the length sortPlain extends a short natural run to
// (by insertion), and sortPlainLongRuns the mean length of the natural
// runs from which it merges them rather than sorting blocks.
const (
	sortPlainMinRun   = 32
	sortPlainLongRuns = 8
)

// sortPlain sorts vals by xs, their Go values, for values that equal
// ones cannot be told apart from (ints of 32 bits, strings, the floats
// plainFloats accepts): every sort then gives the stable sort's result,
// and this one compares Go values, with no comparison function. Data
// made of long ascending or descending runs (a partly sorted list) is
// merged run by run, as CPython's sort does; other data is sorted in
// blocks by Go's sort. The runs or blocks are then merged pairwise. The
// deadline is checked between blocks, runs and merges. Interrupted, it
// leaves vals as they were.
func sortPlain[T int64 | float64 | string](th *starlark.Thread, vals []starlark.Value, xs []T, value func(T) starlark.Value) error {
	descents := 0
	for i := 1; i < len(xs); i++ {
		if xs[i] < xs[i-1] {
			descents++
		}
	}
	var bounds []int // the runs: xs[bounds[k]:bounds[k+1]], each sorted
	if len(xs)/(descents+1) >= sortPlainLongRuns {
		var err error
		if bounds, err = naturalRuns(th, xs); err != nil {
			return err
		}
	} else {
		for lo := 0; lo < len(xs); lo += sortPlainBlock {
			if err := Interrupted(th); err != nil {
				return err
			}
			hi := min(lo+sortPlainBlock, len(xs))
			slices.Sort(xs[lo:hi])
			bounds = append(bounds, lo)
		}
		bounds = append(bounds, len(xs))
	}
	buf := make([]T, len(xs))
	for len(bounds) > 2 {
		merged := bounds[:1]
		for k := 0; k+1 < len(bounds); k += 2 {
			if err := Interrupted(th); err != nil {
				return err
			}
			lo, mid := bounds[k], bounds[k+1]
			hi := mid
			if k+2 < len(bounds) {
				hi = bounds[k+2]
			}
			mergeSorted(buf[lo:hi], xs[lo:mid], xs[mid:hi])
			merged = append(merged, hi)
		}
		bounds = merged
		xs, buf = buf, xs
	}
	for i, x := range xs {
		vals[i] = value(x)
	}
	return nil
}

// naturalRuns splits xs into its ascending runs, reversing strictly
// descending ones and extending runs shorter than sortPlainMinRun by
// insertion, and returns their bounds (0 first, len(xs) last).
func naturalRuns[T int64 | float64 | string](th *starlark.Thread, xs []T) ([]int, error) {
	bounds := []int{0}
	checked := 0
	for lo := 0; lo < len(xs); {
		if lo-checked >= sortPlainBlock {
			if err := Interrupted(th); err != nil {
				return nil, err
			}
			checked = lo
		}
		hi := lo + 1
		if hi < len(xs) && xs[hi] < xs[lo] {
			for hi < len(xs) && xs[hi] < xs[hi-1] {
				hi++
			}
			slices.Reverse(xs[lo:hi])
		} else {
			for hi < len(xs) && !(xs[hi] < xs[hi-1]) {
				hi++
			}
		}
		if end := min(lo+sortPlainMinRun, len(xs)); hi < end {
			for i := hi; i < end; i++ { // insertion into the sorted xs[lo:i]
				x, j := xs[i], i
				for j > lo && x < xs[j-1] {
					xs[j] = xs[j-1]
					j--
				}
				xs[j] = x
			}
			hi = end
		}
		bounds = append(bounds, hi)
		lo = hi
	}
	return bounds, nil
}

// mergeSorted merges the sorted a and b into dst, len(a)+len(b) long.
func mergeSorted[T int64 | float64 | string](dst, a, b []T) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if b[j] < a[i] {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}
