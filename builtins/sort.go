package builtins

import (
	"go.starlark.net/starlark"
)

// sortValues sorts vals in place as Python's list.sort does: stable, by
// key(x) when key is not None, using only <. The sort is a merge sort
// written here rather than the standard library's because it must stop
// as soon as a comparison fails or the deadline passes: the comparator
// checks the budget every few thousand comparisons and every loop gives
// up on the first error.
func sortValues(th *starlark.Thread, vals []starlark.Value, key starlark.Value, reverse bool) error {
	n := len(vals)
	if n < 2 {
		return nil
	}
	// The keys, the permutation and its merge buffer (ints), the output.
	if err := Alloc(th, int64(n)*(SlotSize+8+8+SlotSize)); err != nil {
		return err
	}
	keys := vals
	if key != nil && key != starlark.None {
		keys = make([]starlark.Value, n)
		// The keys are new values (tuples, strings) that only the sort
		// holds, where the engine's walk cannot see them.
		c := charger{th: th}
		for i, v := range vals {
			if i%checkEvery == checkEvery-1 {
				if err := Interrupted(th); err != nil {
					return err
				}
			}
			k, err := starlark.Call(th, key, starlark.Tuple{v}, nil)
			if err != nil {
				return err
			}
			keys[i] = k
			if err := c.add(ValueSize(k)); err != nil {
				return err
			}
		}
		if err := c.flush(); err != nil {
			return err
		}
	}
	s := sorter{th: th, keys: keys, vals: vals, reverse: reverse}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	buf := make([]int, n)
	s.mergeSort(idx, buf)
	if s.err != nil {
		return s.err
	}
	out := make([]starlark.Value, n)
	for i, j := range idx {
		out[i] = vals[j]
	}
	copy(vals, out)
	return nil
}

type sorter struct {
	th      *starlark.Thread
	keys    []starlark.Value
	vals    []starlark.Value
	reverse bool
	n       int
	err     error
}

// before reports whether element i must come before element j. For a
// reverse sort Python keeps equal elements in their original order, so
// reverse compares j < i rather than negating.
func (s *sorter) before(i, j int) bool {
	if s.err != nil {
		return false
	}
	if s.n++; s.n%checkEvery == 0 {
		if s.err = Interrupted(s.th); s.err != nil {
			return false
		}
	}
	a, b := s.keys[i], s.keys[j]
	if s.reverse {
		a, b = b, a
	}
	lt, err := less(a, b)
	if err != nil {
		s.err = err
		return false
	}
	return lt
}

// mergeSort sorts the indices in idx (stable), using buf as scratch.
func (s *sorter) mergeSort(idx, buf []int) {
	const run = 24
	n := len(idx)
	// Insertion-sort short runs.
	for lo := 0; lo < n; lo += run {
		hi := min(lo+run, n)
		for i := lo + 1; i < hi; i++ {
			for j := i; j > lo && s.before(idx[j], idx[j-1]); j-- {
				idx[j], idx[j-1] = idx[j-1], idx[j]
			}
			if s.err != nil {
				return
			}
		}
	}
	// Merge runs bottom-up.
	src, dst := idx, buf
	for width := run; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid := min(lo+width, n)
			hi := min(lo+2*width, n)
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if s.before(src[j], src[i]) {
					dst[k] = src[j]
					j++
				} else {
					dst[k] = src[i]
					i++
				}
				k++
			}
			if s.err != nil {
				return
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
		}
		src, dst = dst, src
	}
	if &src[0] != &idx[0] {
		copy(idx, src)
	}
}
