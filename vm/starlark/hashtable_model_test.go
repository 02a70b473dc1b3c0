// Copyright 2026 The star-agent Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package starlark

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/star-agent/star-agent/vm/syntax"
)

// collider is a key whose hash is its value modulo 5, so that many keys
// share a hash and the table must compare them.
type collider int

func (c collider) String() string        { return fmt.Sprintf("c%d", int(c)) }
func (c collider) Type() string          { return "collider" }
func (c collider) Freeze()               {}
func (c collider) Truth() Bool           { return true }
func (c collider) Hash() (uint32, error) { return uint32(c) % 5, nil }
func (c collider) CompareSameType(op syntax.Token, y Value, depth int) (bool, error) {
	return threeway(op, int(c)-int(y.(collider))), nil
}

// TestHashtableModel runs random inserts, updates, deletes, lookups,
// pops of the first entry and clears against a model (a Go map and the
// keys in insertion order), on keys with distinct hashes and on keys
// whose hashes collide, at sizes around the table's growth points, and
// checks the order of the entries after each step.
func TestHashtableModel(t *testing.T) {
	for _, c := range []struct {
		name string
		key  func(int) Value
		keys int
	}{
		{"ints", func(i int) Value { return MakeInt(i) }, 3000},
		{"small", func(i int) Value { return MakeInt(i) }, 12},
		{"colliding", func(i int) Value { return collider(i) }, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(1))
			checkHashtableModel(t, c.key, c.keys, 20000, func(n int) (int, bool) { return rng.Intn(n), true })
		})
	}
}

// FuzzHashtable is TestHashtableModel driven by the fuzzer's bytes: two
// per step (the operation, the key), on distinct or colliding keys.
func FuzzHashtable(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 60, 1, 80, 0, 99, 2}, false)
	f.Add([]byte{10, 3, 10, 8, 10, 13, 55, 8, 90, 3, 85, 0}, true)
	f.Fuzz(func(t *testing.T, data []byte, colliding bool) {
		key := func(i int) Value { return MakeInt(i) }
		if colliding {
			key = func(i int) Value { return collider(i) }
		}
		checkHashtableModel(t, key, 64, len(data), func(n int) (int, bool) {
			if len(data) == 0 {
				return 0, false
			}
			b := int(data[0])
			data = data[1:]
			return b % n, true
		})
	})
}

// checkHashtableModel runs up to steps operations chosen by next (which
// reports false when it has no more) on a hashtable and on a model (a Go
// map and the keys in insertion order), checking them against each other.
func checkHashtableModel(t *testing.T, key func(int) Value, keys, steps int, next func(n int) (int, bool)) {
	var ht hashtable
	model := map[int]int{}
	var order []int
	for step := range steps {
		k, ok1 := next(keys)
		op, ok2 := next(100)
		if !ok1 || !ok2 {
			return
		}
		switch {
		case op < 50:
			if err := ht.insert(key(k), MakeInt(step)); err != nil {
				t.Fatal(err)
			}
			if _, ok := model[k]; !ok {
				order = append(order, k)
			}
			model[k] = step
		case op < 75:
			v, found, err := ht.delete(key(k))
			want, ok := model[k]
			if err != nil || found != ok || ok && v.(Int) != MakeInt(want) {
				t.Fatalf("step %d: delete(%d) = %v, %t, %v; want %d, %t", step, k, v, found, err, want, ok)
			}
			delete(model, k)
			order = slices.DeleteFunc(order, func(x int) bool { return x == k })
		case op < 85:
			first, ok := ht.first()
			if ok != (len(order) > 0) || ok && first != key(order[0]) {
				t.Fatalf("step %d: first() = %v, %t; want %v", step, first, ok, order)
			}
			if ok {
				ht.delete(first)
				delete(model, order[0])
				order = order[1:]
			}
		case op < 86 && step%4 == 0:
			ht.clear()
			clear(model)
			order = nil
		default:
			v, found, err := ht.lookup(key(k))
			want, ok := model[k]
			if err != nil || found != ok || ok && v.(Int) != MakeInt(want) {
				t.Fatalf("step %d: lookup(%d) = %v, %t, %v; want %d, %t", step, k, v, found, err, want, ok)
			}
		}
		if int(ht.len) != len(model) {
			t.Fatalf("step %d: len %d, want %d", step, ht.len, len(model))
		}
		if step%97 == 0 || len(model) < 20 {
			var got []Value
			for k, v := range ht.all {
				if v.(Int) != MakeInt(model[keyInt(k)]) {
					t.Fatalf("step %d: %v: %v, want %d", step, k, v, model[keyInt(k)])
				}
				got = append(got, k)
			}
			want := make([]Value, len(order))
			for i, k := range order {
				want[i] = key(k)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: keys %v, want %v", step, got, want)
			}
		}
	}
}

func keyInt(k Value) int {
	if c, ok := k.(collider); ok {
		return int(c)
	}
	i, _ := AsInt32(k)
	return i
}

// TestHashtablePresized checks that a table presized for n entries takes
// them without growing.
func TestHashtablePresized(t *testing.T) {
	for _, n := range []int{0, 1, 8, 9, 100, 1000} {
		d := NewDict(n)
		entries, index := cap(d.ht.entries), len(d.ht.index)
		for i := range n {
			d.SetKey(MakeInt(i), None)
		}
		if cap(d.ht.entries) != entries || len(d.ht.index) != index {
			t.Errorf("NewDict(%d) grew from %d entries to %d", n, entries, cap(d.ht.entries))
		}
	}
}
