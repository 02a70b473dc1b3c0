// Copyright 2026 The star-agent Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package starlark_test

import (
	"strings"
	"testing"

	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// selfSharing returns a value nested n deep whose every level holds the
// level below twice: 2**n leaves, n+1 distinct values.
func selfSharing(n int, wrap func(a, b starlark.Value) starlark.Value) starlark.Value {
	var v starlark.Value = starlark.Tuple{}
	for range n {
		v = wrap(v, v)
	}
	return v
}

// TestSelfSharingEqual: values that share their parts compare in time
// linear in their distinct parts (the memo of equal pairs); they took
// 2**60 steps, as in CPython. Nesting deeper than 10, which failed
// ("maximum recursion"), compares as in Python.
func TestSelfSharingEqual(t *testing.T) {
	kinds := map[string]func(a, b starlark.Value) starlark.Value{
		"tuple": func(a, b starlark.Value) starlark.Value { return starlark.Tuple{a, b} },
		"list":  func(a, b starlark.Value) starlark.Value { return starlark.NewList([]starlark.Value{a, b}) },
		"dict": func(a, b starlark.Value) starlark.Value {
			d := starlark.NewDict(2)
			d.SetKey(starlark.MakeInt(1), a)
			d.SetKey(starlark.MakeInt(2), b)
			return d
		},
	}
	for name, wrap := range kinds {
		a, b := selfSharing(60, wrap), selfSharing(60, wrap)
		for _, c := range []struct {
			op   syntax.Token
			want bool
		}{{syntax.EQL, true}, {syntax.NEQ, false}, {syntax.LT, false}, {syntax.LE, true}} {
			if name == "dict" && c.op != syntax.EQL && c.op != syntax.NEQ {
				continue
			}
			got, err := starlark.Compare(c.op, a, b)
			if err != nil || got != c.want {
				t.Errorf("%s: a %s b = %v, %v; want %v", name, c.op, got, err, c.want)
			}
		}
		// Different at the deepest leaf: unequal.
		c := selfSharing(59, wrap)
		c = wrap(c, selfSharing(59, func(x, y starlark.Value) starlark.Value {
			if x.(interface{ Len() int }).Len() == 0 {
				return wrap(starlark.MakeInt(1), y)
			}
			return wrap(x, y)
		}))
		if eq, err := starlark.Equal(a, c); err != nil || eq {
			t.Errorf("%s: a == c = %v, %v; want false", name, eq, err)
		}
	}
}

// pairExplosion returns two equal values, nested depth deep with width
// values at each level, that share their parts in different patterns: the
// pairs of parts a comparison meets grow as 2**level up to width**2, more
// than a memo holds.
func pairExplosion(width, depth int) (x, y starlark.Value) {
	xs := make([]starlark.Value, width)
	ys := make([]starlark.Value, width)
	for i := range xs {
		xs[i], ys[i] = starlark.MakeInt(0), starlark.MakeInt(0)
	}
	for range depth {
		nx := make([]starlark.Value, width)
		ny := make([]starlark.Value, width)
		for i := range nx {
			nx[i] = starlark.Tuple{xs[2*i%width], xs[(2*i+1)%width]}
			ny[i] = starlark.Tuple{ys[3*i%width], ys[(3*i+1)%width]}
		}
		xs, ys = nx, ny
	}
	return xs[0], ys[0]
}

// TestComparisonOnCancelledThread: a comparison made for a thread ends
// once the thread is cancelled, whether from ==, an ordering, x in y or a
// dict or set lookup.
func TestComparisonOnCancelledThread(t *testing.T) {
	x, y := pairExplosion(512, 40)
	th := new(starlark.Thread)
	th.Cancel("timeout")
	check := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "cancelled: timeout") {
			t.Errorf("%s: err = %v, want the cancellation", what, err)
		}
	}
	_, err := starlark.EqualOn(th, x, y)
	check("EqualOn", err)
	_, err = starlark.CompareOn(th, syntax.LT, x, y)
	check("CompareOn <", err)
	d := starlark.NewDict(1)
	d.SetKey(x, starlark.None)
	_, _, err = d.GetOn(th, y)
	check("GetOn", err)
	check("SetKeyOn", d.SetKeyOn(th, y, starlark.None))
	s := starlark.NewSet(1)
	s.Insert(x)
	_, err = s.HasOn(th, y)
	check("HasOn", err)
	check("InsertOn", s.InsertOn(th, y))
}

// TestThreadlessComparisonEnds: a comparison made without a thread, which
// cannot see a deadline, gives up after 2**24 items instead of spinning on.
func TestThreadlessComparisonEnds(t *testing.T) {
	x, y := pairExplosion(256, 30)
	_, err := starlark.Equal(x, y)
	if err == nil || !strings.Contains(err.Error(), "comparison too long") {
		t.Errorf("Equal: err = %v, want the comparison to give up", err)
	}
}
