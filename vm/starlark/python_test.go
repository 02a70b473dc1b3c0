// Copyright 2026 The star-agent Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package starlark_test

import (
	"errors"
	"math/big"
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

func TestIntTrueDivision(t *testing.T) {
	big400 := new(big.Int).Exp(big.NewInt(10), big.NewInt(400), nil)
	big399 := new(big.Int).Exp(big.NewInt(10), big.NewInt(399), nil)
	for _, c := range []struct {
		x, y starlark.Int
		want float64
		err  string
	}{
		{starlark.MakeInt(7), starlark.MakeInt(2), 3.5, ""},
		{starlark.MakeBigInt(big400), starlark.MakeBigInt(big399), 10, ""},
		{starlark.MakeInt64(100000000000000001), starlark.MakeInt(3), 3.3333333333333332e+16, ""},
		{starlark.MakeBigInt(big400), starlark.MakeInt(3), 0, "integer division result too large for a float"},
		{starlark.MakeInt(1), starlark.MakeInt(0), 0, "floating-point division by zero"},
	} {
		v, err := starlark.Binary(syntax.SLASH, c.x, c.y)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%v / %v: got %v, %v; want error %q", c.x, c.y, v, err, c.err)
			}
			continue
		}
		if err != nil || v != starlark.Float(c.want) {
			t.Errorf("%v / %v = %v, %v; want %v", c.x, c.y, v, err, c.want)
		}
	}
}
