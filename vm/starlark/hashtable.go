// Copyright 2017 The Bazel Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package starlark

import (
	"fmt"
	"hash/maphash"
	"os"
)

// hashtable is used to represent Starlark dict and set values.
//
// star-agent: it is a compact, insertion-ordered table, as CPython's
// dict is: the entries sit in a dense array in insertion order (a deleted
// one is left as a hole, its key nil, until the array is next rebuilt),
// and an open-addressing index of int32s maps hashes to positions in that
// array. A table of up to smallTable entries has no index and is
// searched linearly. Growing the table copies the entries and rebuilds
// the index from the hashes they keep, without hashing or comparing any
// key again (upstream's chained buckets rehashed every key on growth,
// about half the cost of building a dict), and NewDict's size presizes
// both arrays.
//
// Initialized instances of hashtable must not be copied.
type hashtable struct {
	entries   []entry // in insertion order; a deleted entry has a nil key
	index     []int32 // nil, or 0 empty, -1 deleted, i+1 for entries[i]
	len       uint32  // number of entries with a key
	head      uint32  // entries before head are all deleted
	itercount uint32  // number of active iterators (ignored if frozen)
	frozen    bool

	_ noCopy // triggers vet copylock check on this type.
}

// noCopy is zero-sized type that triggers vet's copylock check.
// See https://github.com/golang/go/issues/8005#issuecomment-190753527.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

type entry struct {
	key, value Value // key is nil for a deleted entry
	hash       uint32
}

// smallTable is the capacity up to which a table has no index.
const smallTable = 8

func (ht *hashtable) init(size int) {
	if size < 0 {
		panic("size < 0")
	}
	if size > 0 {
		ht.rebuild(size)
	} else {
		ht.entries = []entry{} // allocated, as for upstream: see delete
	}
}

// rebuild moves the table's entries, holes left out, into an array of
// capacity capacity (at least ht.len) and rebuilds the index.
func (ht *hashtable) rebuild(capacity int) {
	var entries []entry
	if capacity == cap(ht.entries) {
		entries = ht.entries[:0] // compact in place
	} else {
		entries = make([]entry, 0, capacity)
	}
	if live := ht.entries[ht.head:]; len(live) == int(ht.len) {
		entries = append(entries, live...) // no holes: one copy
	} else {
		for _, e := range live {
			if e.key != nil {
				entries = append(entries, e)
			}
		}
	}
	clear(ht.entries[len(entries):]) // keep nothing alive
	ht.entries, ht.head = entries, 0
	if capacity <= smallTable {
		ht.index = nil
		return
	}
	size := 2 * smallTable
	for size < 2*capacity {
		size <<= 1
	}
	if len(ht.index) == size {
		clear(ht.index)
	} else {
		ht.index = make([]int32, size)
	}
	mask := uint32(size - 1)
	for j := range entries {
		h := entries[j].hash
		i, perturb := h&mask, h
		for ht.index[i] != 0 {
			perturb >>= 5
			i = (i*5 + 1 + perturb) & mask
		}
		ht.index[i] = int32(j + 1)
	}
}

func (ht *hashtable) freeze() {
	if !ht.frozen {
		ht.frozen = true
		for _, e := range ht.entries[ht.head:] {
			if e.key != nil {
				e.key.Freeze()
				e.value.Freeze()
			}
		}
	}
}

// find returns the position of k, of hash h, in ht.entries and the
// index slot that holds it, or -1 and, if the table has an index, the
// empty slot where k would go.
func (ht *hashtable) find(k Value, h uint32) (pos, slot int, err error) {
	return ht.findOn(nil, k, h)
}

// findOn is find for a lookup made on behalf of thread, whose
// cancellation ends a long comparison of keys (star-agent).
func (ht *hashtable) findOn(thread *Thread, k Value, h uint32) (pos, slot int, err error) {
	if ht.index == nil {
		for j := int(ht.head); j < len(ht.entries); j++ {
			e := &ht.entries[j]
			if e.hash == h && e.key != nil {
				if eq, err := EqualOn(thread, k, e.key); err != nil {
					return -1, -1, err // e.g. excessively recursive tuple
				} else if eq {
					return j, -1, nil
				}
			}
		}
		return -1, -1, nil
	}
	mask := uint32(len(ht.index) - 1)
	i, perturb := h&mask, h
	for {
		s := ht.index[i]
		if s == 0 {
			return -1, int(i), nil
		}
		if s > 0 {
			e := &ht.entries[s-1]
			if e.hash == h {
				if eq, err := EqualOn(thread, k, e.key); err != nil {
					return -1, -1, err
				} else if eq {
					return int(s - 1), int(i), nil
				}
			}
		}
		perturb >>= 5
		i = (i*5 + 1 + perturb) & mask
	}
}

func (ht *hashtable) insert(k, v Value) error {
	if err := ht.checkMutable("insert into"); err != nil {
		return err
	}
	h, err := k.Hash()
	if err != nil {
		return err
	}
	return ht.insertHash(k, v, h)
}

// insertHash is insert for a key whose hash is h, on a mutable table.
func (ht *hashtable) insertHash(k, v Value, h uint32) error {
	return ht.insertHashOn(nil, k, v, h)
}

// insertHashOn is insertHash on behalf of thread (see findOn).
func (ht *hashtable) insertHashOn(thread *Thread, k, v Value, h uint32) error {
	pos, slot, err := ht.findOn(thread, k, h)
	if err != nil {
		return err
	}
	if pos >= 0 {
		// Key already present; update value.
		ht.entries[pos].value = v
		return nil
	}
	if len(ht.entries) == cap(ht.entries) {
		// Full: compact the table if at least half of it is holes,
		// else double it.
		capacity := cap(ht.entries)
		if int(ht.len) >= capacity/2 {
			capacity = max(2*capacity, 4)
		}
		ht.rebuild(capacity)
		slot = -1
		if ht.index != nil {
			mask := uint32(len(ht.index) - 1)
			i, perturb := h&mask, h
			for ht.index[i] != 0 {
				perturb >>= 5
				i = (i*5 + 1 + perturb) & mask
			}
			slot = int(i)
		}
	}
	ht.entries = append(ht.entries, entry{key: k, value: v, hash: h})
	if slot >= 0 {
		ht.index[slot] = int32(len(ht.entries))
	}
	ht.len++
	return nil
}

func (ht *hashtable) lookup(k Value) (v Value, found bool, err error) {
	h, err := k.Hash()
	if err != nil {
		return nil, false, err // unhashable
	}
	if ht.len == 0 {
		return None, false, nil // empty
	}
	pos, _, err := ht.find(k, h)
	if err != nil {
		return nil, false, err
	}
	if pos < 0 {
		return None, false, nil // not found
	}
	return ht.entries[pos].value, true, nil
}

// count returns the number of distinct elements of iter that are elements of ht.
func (ht *hashtable) count(iter Iterator) (int, error) {
	if ht.len == 0 {
		return 0, nil // empty
	}

	var k Value
	count := 0

	// A bit per entry records the elements of ht seen.
	seen := make([]uint64, (len(ht.entries)+63)/64)
	for iter.Next(&k) && count != int(ht.len) {
		h, err := k.Hash()
		if err != nil {
			return 0, err // unhashable
		}
		pos, _, err := ht.find(k, h)
		if err != nil {
			return 0, err
		}
		if pos >= 0 && seen[pos/64]&(1<<(pos%64)) == 0 {
			seen[pos/64] |= 1 << (pos % 64)
			count++
		}
	}

	return count, nil
}

// Items returns all the items in the map (as key/value pairs) in insertion order.
func (ht *hashtable) items() []Tuple {
	items := make([]Tuple, 0, ht.len)
	array := make([]Value, ht.len*2) // allocate a single backing array
	for _, e := range ht.entries[ht.head:] {
		if e.key == nil {
			continue
		}
		pair := Tuple(array[:2:2])
		array = array[2:]
		pair[0] = e.key
		pair[1] = e.value
		items = append(items, pair)
	}
	return items
}

func (ht *hashtable) first() (Value, bool) {
	for _, e := range ht.entries[ht.head:] {
		if e.key != nil {
			return e.key, true
		}
	}
	return None, false
}

func (ht *hashtable) keys() []Value {
	keys := make([]Value, 0, ht.len)
	for _, e := range ht.entries[ht.head:] {
		if e.key != nil {
			keys = append(keys, e.key)
		}
	}
	return keys
}

func (ht *hashtable) delete(k Value) (v Value, found bool, err error) {
	return ht.deleteOn(nil, k)
}

// deleteOn is delete on behalf of thread (see findOn).
func (ht *hashtable) deleteOn(thread *Thread, k Value) (v Value, found bool, err error) {
	if err := ht.checkMutable("delete from"); err != nil {
		return nil, false, err
	}
	if ht.entries == nil {
		return None, false, nil // never allocated: upstream's table == nil
	}
	h, err := k.Hash()
	if err != nil {
		return nil, false, err // unhashable
	}
	pos, slot, err := ht.findOn(thread, k, h)
	if err != nil {
		return nil, false, err
	}
	if pos < 0 {
		return None, false, nil // not found
	}
	v = ht.entries[pos].value
	ht.entries[pos] = entry{}
	if ht.index != nil {
		ht.index[slot] = -1
	}
	ht.len--
	if pos == int(ht.head) {
		// Skip the holes at the front, so that popping the first
		// entry again and again (dict.popitem) stays cheap. The holes
		// go when the table is next rebuilt.
		for int(ht.head) < len(ht.entries) && ht.entries[ht.head].key == nil {
			ht.head++
		}
	}
	return v, true, nil // found
}

// checkMutable reports an error if the hash table should not be mutated.
// verb+" dict" should describe the operation.
func (ht *hashtable) checkMutable(verb string) error {
	if ht.frozen {
		return fmt.Errorf("cannot %s frozen hash table", verb)
	}
	if ht.itercount > 0 {
		return fmt.Errorf("cannot %s hash table during iteration", verb)
	}
	return nil
}

func (ht *hashtable) clear() error {
	if err := ht.checkMutable("clear"); err != nil {
		return err
	}
	clear(ht.entries)
	ht.entries, ht.head = ht.entries[:0], 0
	clear(ht.index)
	ht.len = 0
	return nil
}

func (ht *hashtable) addAll(other *hashtable) error {
	for _, e := range other.entries[other.head:] {
		if e.key == nil {
			continue
		}
		if err := ht.checkMutable("insert into"); err != nil {
			return err
		}
		if err := ht.insertHash(e.key, e.value, e.hash); err != nil {
			return err
		}
	}
	return nil
}

// dump is provided as an aid to debugging.
func (ht *hashtable) dump() {
	fmt.Fprintf(os.Stderr, "hashtable %p len=%d head=%d entries=%d/%d index=%d\n",
		ht, ht.len, ht.head, len(ht.entries), cap(ht.entries), len(ht.index))
	for j, e := range ht.entries {
		fmt.Fprintf(os.Stderr, "\tentry %d hash=%d key=%v value=%v\n", j, e.hash, e.key, e.value)
	}
	for i, s := range ht.index {
		if s != 0 {
			fmt.Fprintf(os.Stderr, "\tslot %d: %d\n", i, s)
		}
	}
}

func (ht *hashtable) iterate() *keyIterator {
	if !ht.frozen {
		ht.itercount++
	}
	return &keyIterator{ht: ht, pos: int(ht.head)}
}

// A keyIterator walks the entries of a table, which cannot change while
// it is active (see checkMutable).
type keyIterator struct {
	ht  *hashtable
	pos int
}

func (it *keyIterator) Next(k *Value) bool {
	for it.pos < len(it.ht.entries) {
		e := &it.ht.entries[it.pos]
		it.pos++
		if e.key != nil {
			*k = e.key
			return true
		}
	}
	return false
}

func (it *keyIterator) Done() {
	if !it.ht.frozen {
		it.ht.itercount--
	}
}

// all is a go1.23 iterator over the entries of the hash table.
func (ht *hashtable) all(yield func(k, v Value) bool) {
	if !ht.frozen {
		ht.itercount++
		defer func() { ht.itercount-- }()
	}
	for j := int(ht.head); j < len(ht.entries); j++ {
		if e := &ht.entries[j]; e.key != nil && !yield(e.key, e.value) {
			return
		}
	}
}

var seed = maphash.MakeSeed()

// hashString computes the hash of s.
func hashString(s string) uint32 {
	if len(s) >= 12 {
		// Call the Go runtime's optimized hash implementation,
		// which uses the AES instructions on amd64 and arm64 machines.
		h := maphash.String(seed, s)
		return uint32(h>>32) ^ uint32(h)
	}
	return softHashString(s)
}

// softHashString computes the 32-bit FNV-1a hash of s in software.
func softHashString(s string) uint32 {
	var h uint32 = 2166136261
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}
