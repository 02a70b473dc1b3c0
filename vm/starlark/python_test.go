// Copyright 2026 The star-agent Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package starlark_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// failing is a value whose truth and equality fail, as a Python class
// whose __bool__ and __eq__ raise.
type failing struct{}

var errFail = errors.New("failed")

func (*failing) String() string                   { return "failing" }
func (*failing) Type() string                     { return "failing" }
func (*failing) Freeze()                          {}
func (*failing) Truth() starlark.Bool             { return false }
func (*failing) Hash() (uint32, error)            { return 0, nil }
func (*failing) TruthErr() (starlark.Bool, error) { return false, errFail }
func (*failing) CompareOther(op syntax.Token, y starlark.Value, depth int) (bool, bool, error) {
	return false, true, errFail
}

func TestFallibleTruthAndEquality(t *testing.T) {
	f := &failing{}
	for _, src := range []string{
		"1 if x else 2", "not x", "x and 1", "bool(x)", "all([x])", "any([x])",
		"1 in [x]", "x in (1,)", "x == 1", "[x] == [1]", "[1].index(x)",
	} {
		_, err := starlark.Eval(&starlark.Thread{}, "t", src, starlark.StringDict{"x": f})
		if err == nil || !strings.Contains(err.Error(), errFail.Error()) {
			t.Errorf("%s: got error %v, want %v", src, err, errFail)
		}
	}
	// A container finds the object itself without asking it.
	v, err := starlark.Eval(&starlark.Thread{}, "t", "x in [x]", starlark.StringDict{"x": f})
	if err != nil || v != starlark.True {
		t.Errorf("x in [x] = %v, %v; want True", v, err)
	}
}
