package core

// The order in which a set of numbers iterates and prints in CPython.
// go.starlark.net's sets keep insertion order; CPython's iterate in the
// order of their hash table's slots, so {3, 1, 2} prints as {1, 2, 3}.
// Models print sets of numbers often enough that the difference would be
// a silently different output. For a set holding only ints, bools and
// integral floats, whose CPython hashes are their values, setOrder
// replays the set's insertions into a table laid out as CPython 3.11's
// setobject.c lays it out (linear probing, then perturbation; resizing
// when 3/5 full). The replay starts from an empty set: a set that lost
// elements or was built by a set operation may have a larger table in
// CPython, which can order colliding values differently. Sets holding
// other values (strings, whose CPython hashes are randomized per process,
// tuples, ...) keep insertion order.

import (
	"math"
	"math/big"

	"github.com/star-agent/star-agent/vm/starlark"
)

const (
	setMinSize   = 8 // PySet_MINSIZE
	linearProbes = 9 // LINEAR_PROBES
	perturbShift = 5 // PERTURB_SHIFT
	hashModulus  = (1 << 61) - 1
)

// maxOrderedSet bounds the sets reordered: larger ones (rare in printed
// output) keep insertion order rather than pay for a second table.
const maxOrderedSet = 1 << 16

// setOrder returns the elements of s in CPython's iteration order, or
// false when s holds a value whose CPython hash is not known here.
func setOrder(s *starlark.Set) ([]starlark.Value, bool) {
	n := s.Len()
	if n < 2 || n > maxOrderedSet {
		return nil, false
	}
	hashes := make([]uint64, 0, n)
	elems := make([]starlark.Value, 0, n)
	for x := range s.Elements() {
		h, ok := numberHash(x)
		if !ok {
			return nil, false
		}
		hashes = append(hashes, h)
		elems = append(elems, x)
	}
	type entry struct {
		used bool
		hash uint64
		i    int // index into elems
	}
	table := make([]entry, setMinSize)
	insert := func(t []entry, h uint64, i int) {
		mask := uint64(len(t) - 1)
		j := h & mask
		perturb := h
		for {
			probes := uint64(0)
			if j+linearProbes <= mask {
				probes = linearProbes
			}
			for k := uint64(0); k <= probes; k++ {
				if !t[j+k].used {
					t[j+k] = entry{used: true, hash: h, i: i}
					return
				}
			}
			perturb >>= perturbShift
			j = (j*5 + 1 + perturb) & mask
		}
	}
	fill := 0
	for i, h := range hashes {
		insert(table, h, i)
		fill++
		if mask := len(table) - 1; fill*5 >= mask*3 {
			minused := fill * 4
			if fill > 50000 {
				minused = fill * 2
			}
			size := setMinSize
			for size <= minused {
				size <<= 1
			}
			bigger := make([]entry, size)
			for _, e := range table {
				if e.used {
					insert(bigger, e.hash, e.i)
				}
			}
			table = bigger
		}
	}
	out := make([]starlark.Value, 0, n)
	for _, e := range table {
		if e.used {
			out = append(out, elems[e.i])
		}
	}
	return out, true
}

// numberHash is CPython's hash of an int, a bool or an integral float,
// as the unsigned value its set table indexes with.
func numberHash(x starlark.Value) (uint64, bool) {
	var v *big.Int
	switch x := x.(type) {
	case starlark.Bool:
		if x {
			return 1, true
		}
		return 0, true
	case starlark.Int:
		if i, ok := x.Int64(); ok && i > -hashModulus && i < hashModulus {
			return smallHash(i), true
		}
		v = x.BigInt()
	case starlark.Float:
		f := float64(x)
		if f != math.Trunc(f) || math.IsInf(f, 0) {
			return 0, false
		}
		if f > -hashModulus && f < hashModulus {
			return smallHash(int64(f)), true
		}
		v, _ = big.NewFloat(f).Int(nil)
	default:
		return 0, false
	}
	// hash(n) = sign(n) * (|n| mod (2**61 - 1)), and -1 becomes -2.
	m := new(big.Int).Mod(new(big.Int).Abs(v), big.NewInt(hashModulus)).Int64()
	if v.Sign() < 0 {
		m = -m
	}
	return smallHash(m), true
}

func smallHash(i int64) uint64 {
	if i == -1 {
		i = -2
	}
	return uint64(i)
}

// setElements returns the elements of s in the order Python shows them.
func setElements(s *starlark.Set) []starlark.Value {
	if vals, ok := setOrder(s); ok {
		return vals
	}
	vals := make([]starlark.Value, 0, s.Len())
	for x := range s.Elements() {
		vals = append(vals, x)
	}
	return vals
}
