// Copyright 2026 The star-agent Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package starlark

// This file holds star-agent's state of one deep comparison (==, <, x in
// y, dict lookups) of lists, tuples and dicts, shared by the comparisons
// of their items:
//
//   - items that are the same container are equal without being
//     compared, as Python's containers take them to be
//     (PyObject_RichCompareBool): [x] == [x] whatever x holds;
//   - the pairs of nested containers found equal at a cost of many items
//     are remembered, so that values that share their parts (a = (a, a)
//     sixty times over) compare in time linear in their distinct parts
//     rather than in their expanded size, which is exponential (CPython
//     takes as long as that); comparisons of values that share nothing
//     pay one map check per container (a pair stays remembered for the
//     rest of the comparison: a user __eq__ that changes a list while it
//     is compared may find it taken as before, where CPython looks again);
//   - a comparison made for a thread looks at its cancellation every few
//     thousand items, and fails as the interpreter does once it is
//     cancelled (deadline), so that what the memo does not shorten ends
//     at the deadline; one made without a thread fails after 2**24 items.

import (
	"fmt"

	"github.com/star-agent/star-agent/vm/syntax"
)

const (
	// cmpCheckEvery is how many items a comparison looks at between two
	// looks at its thread's cancellation.
	cmpCheckEvery = 1 << 12
	// cmpMemoCost is how many items the comparison of two nested
	// containers must have looked at for the pair to be remembered if
	// equal: small containers, and comparisons of few items, allocate
	// nothing.
	cmpMemoCost = 64
	// cmpMemoMax bounds the pairs remembered.
	cmpMemoMax = 1 << 16
	// cmpThreadlessMax bounds the items a comparison made without a
	// thread (a dict literal's keys, a builtin's lookup) may look at: it
	// cannot see the deadline, and what the memo does not shorten (values
	// that share their parts in different patterns) would otherwise spin
	// on after its execution was abandoned. Values that share nothing
	// would need gigabytes to hold this many items.
	cmpThreadlessMax = 1 << 24
)

// A comparer is the state of one comparison in progress. Its zero value
// is a comparison without a thread.
type comparer struct {
	thread *Thread
	work   uint64
	equal  map[cmpPair]struct{} // pairs of containers found equal
}

// cmpPair is a pair of containers: *List, *Dict, or a tuple's first
// element and length (a slice of a tuple may share its elements).
type cmpPair struct {
	x, y   any
	xn, yn int
}

// EqualOn is Equal for a comparison made on behalf of thread, which it
// fails once thread is cancelled. thread may be nil.
func EqualOn(thread *Thread, x, y Value) (bool, error) {
	if x, ok := x.(String); ok {
		return x == y, nil
	}
	c := comparer{thread: thread}
	return c.equalDepth(x, y, CompareLimit)
}

// CompareOn is Compare for a comparison made on behalf of thread, which
// it fails once thread is cancelled. thread may be nil.
func CompareOn(thread *Thread, op syntax.Token, x, y Value) (bool, error) {
	c := comparer{thread: thread}
	return c.compareDepth(op, x, y, CompareLimit)
}

// tick counts one item looked at, and fails once the comparison's thread
// is cancelled.
func (c *comparer) tick() error {
	c.work++
	if c.work%cmpCheckEvery != 0 {
		return nil
	}
	if c.thread == nil {
		if c.work >= cmpThreadlessMax {
			return fmt.Errorf("comparison too long: more than %d items compared where the deadline cannot be checked", cmpThreadlessMax)
		}
		return nil
	}
	if reason := c.thread.cancelReason.Load(); reason != nil {
		return fmt.Errorf("Starlark computation cancelled: %s", *reason)
	}
	return nil
}

// containers compares two lists, tuples or dicts; ok is false for other
// values.
func (c *comparer) containers(op syntax.Token, x, y Value, depth int) (r, ok bool, err error) {
	var key cmpPair
	switch x := x.(type) {
	case *List:
		if _, ok := y.(*List); !ok {
			return false, false, nil
		}
		key = cmpPair{x: x, y: y}
	case Tuple:
		yt, ok := y.(Tuple)
		if !ok {
			return false, false, nil
		}
		if len(x) == 0 || len(yt) == 0 {
			r, err = c.sliceCompare(op, x, yt, depth)
			return r, true, err
		}
		key = cmpPair{&x[0], &yt[0], len(x), len(yt)}
	case *Dict:
		if _, ok := y.(*Dict); !ok || op != syntax.EQL && op != syntax.NEQ {
			return false, false, nil // CompareSameType's
		}
		key = cmpPair{x: x, y: y}
	default:
		return false, false, nil
	}
	if op != syntax.EQL && op != syntax.NEQ {
		// An ordering: the first items that differ are ordered, the
		// others compared for equality.
		r, err = c.sliceCompare(op, seqElems(x), seqElems(y), depth)
		return r, true, err
	}
	if len(c.equal) > 0 {
		if _, known := c.equal[key]; known {
			return op == syntax.EQL, true, nil
		}
	}
	before := c.work
	var eq bool
	if xd, isDict := x.(*Dict); isDict {
		eq, err = c.dictsEqual(xd, y.(*Dict), depth)
	} else {
		eq, err = c.sliceCompare(syntax.EQL, seqElems(x), seqElems(y), depth)
	}
	if err != nil {
		return false, true, err
	}
	if eq && depth < CompareLimit && c.work-before >= cmpMemoCost && len(c.equal) < cmpMemoMax {
		if c.equal == nil {
			c.equal = make(map[cmpPair]struct{})
		}
		c.equal[key] = struct{}{}
	}
	return eq == (op == syntax.EQL), true, nil
}

// seqElems is the items of a list or tuple.
func seqElems(v Value) []Value {
	if l, ok := v.(*List); ok {
		return l.elems
	}
	return v.(Tuple)
}

// identical reports whether x and y are the same container (or the same
// value with a user-defined __eq__; see CrossComparable), which Python's
// containers take to be equal without comparing them.
func identical(x, y Value) bool {
	switch x := x.(type) {
	case *List:
		y, ok := y.(*List)
		return ok && x == y
	case Tuple:
		y, ok := y.(Tuple)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case *Dict:
		y, ok := y.(*Dict)
		return ok && x == y
	case *Set:
		y, ok := y.(*Set)
		return ok && x == y
	case CrossComparable:
		return x == y
	}
	return false
}

// A ContainerOn is a Container whose membership test can be long (an
// iterator, which x in y consumes): the interpreter gives it its thread,
// whose cancellation ends the test.
type ContainerOn interface {
	Container
	HasOn(thread *Thread, x Value) (bool, error)
}

// threadedContainer reports whether inOn gives y the thread: the
// interpreter's shortcut for an int in a container must not bypass it.
func threadedContainer(y Value) bool {
	switch y.(type) {
	case *List, Tuple, *Dict, *Set, ContainerOn:
		return true
	}
	return false
}

// inOn is x in y for the interpreter's thread: in a list, a tuple, a
// dict or a set, the comparisons of x with their items fail once thread
// is cancelled. Other values are Binary's.
func inOn(thread *Thread, x, y Value) (Value, error) {
	var elems []Value
	switch y := y.(type) {
	case *List:
		elems = y.elems
	case Tuple:
		elems = y
	case *Dict:
		_, found, err := y.ht.lookupOn(thread, x)
		if err != nil && thread.cancelReason.Load() != nil {
			return nil, err
		}
		// Other errors are ignored, as Binary does.
		return Bool(found), nil
	case *Set:
		_, found, err := y.ht.lookupOn(thread, x)
		return Bool(found), err
	case ContainerOn:
		found, err := y.HasOn(thread, x)
		return Bool(found), err
	default:
		return Binary(syntax.IN, x, y)
	}
	xi, xInt := x.(Int)
	c := comparer{thread: thread}
	for _, e := range elems {
		if err := c.tick(); err != nil {
			return nil, err
		}
		switch e := e.(type) {
		case String:
			if e == x {
				return True, nil // Equal's fast path
			}
			continue
		case Int:
			if xInt {
				if c, _ := e.Cmp(xi, 1); c == 0 {
					return True, nil
				}
				continue
			}
		}
		if identical(e, x) {
			return True, nil
		}
		if eq, err := c.equalDepth(e, x, CompareLimit); err != nil {
			return nil, err
		} else if eq {
			return True, nil
		}
	}
	return False, nil
}

// lookupOn is lookup on behalf of thread (see findOn).
func (ht *hashtable) lookupOn(thread *Thread, k Value) (v Value, found bool, err error) {
	h, err := k.Hash()
	if err != nil {
		return nil, false, err // unhashable
	}
	if ht.len == 0 {
		return None, false, nil // empty
	}
	pos, _, err := ht.findOn(thread, k, h)
	if err != nil {
		return nil, false, err
	}
	if pos < 0 {
		return None, false, nil // not found
	}
	return ht.entries[pos].value, true, nil
}

// insertOn is insert on behalf of thread (see findOn).
func (ht *hashtable) insertOn(thread *Thread, k, v Value) error {
	if err := ht.checkMutable("insert into"); err != nil {
		return err
	}
	h, err := k.Hash()
	if err != nil {
		return err
	}
	return ht.insertHashOn(thread, k, v, h)
}

// InsertOn is Insert for a builtin running on thread: a long comparison
// of k with an element of equal hash fails once thread is cancelled.
func (s *Set) InsertOn(thread *Thread, k Value) error { return s.ht.insertOn(thread, k, None) }

// HasOn is Has for a builtin running on thread (see InsertOn).
func (s *Set) HasOn(thread *Thread, k Value) (found bool, err error) {
	_, found, err = s.ht.lookupOn(thread, k)
	return
}

// DeleteOn is Delete for a builtin running on thread (see InsertOn).
func (s *Set) DeleteOn(thread *Thread, k Value) (found bool, err error) {
	_, found, err = s.ht.deleteOn(thread, k)
	return
}

// DeleteOn is Delete for a builtin running on thread (see InsertOn).
func (d *Dict) DeleteOn(thread *Thread, k Value) (v Value, found bool, err error) {
	return d.ht.deleteOn(thread, k)
}

// SetKeyOn is SetKey for a builtin running on thread (see InsertOn).
func (d *Dict) SetKeyOn(thread *Thread, k, v Value) error { return d.ht.insertOn(thread, k, v) }

// GetOn is Get for a builtin running on thread (see InsertOn).
func (d *Dict) GetOn(thread *Thread, k Value) (v Value, found bool, err error) {
	return d.ht.lookupOn(thread, k)
}

// getIndexOn is getIndex for the interpreter's thread: a dict's lookup
// fails once thread is cancelled (see findOn).
func getIndexOn(thread *Thread, x, y Value) (Value, error) {
	d, ok := x.(*Dict)
	if !ok {
		return getIndex(x, y)
	}
	z, found, err := d.GetOn(thread, y)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("key %v not in %s", y, d.Type())
	}
	return z, nil
}

// setIndexOn is setIndex for the interpreter's thread (see getIndexOn).
func setIndexOn(thread *Thread, x, y, z Value) error {
	if d, ok := x.(*Dict); ok {
		return d.SetKeyOn(thread, y, z)
	}
	return setIndex(x, y, z)
}
