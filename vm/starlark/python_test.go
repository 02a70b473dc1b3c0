// Copyright 2026 The star-agent Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package starlark_test

import (
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/starlarkstruct"
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

// TestMethodCalls checks x.f(args), which calls the methods of the
// built-in types without binding them (compile.CALL_METHOD), against
// what binding them gives: results, errors, the order in which the
// method is looked up and the arguments evaluated, and the steps counted.
func TestMethodCalls(t *testing.T) {
	obj := starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"f": starlark.NewBuiltin("f", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return starlark.Tuple{starlark.String(b.Name()), args, starlark.Tuple(kwargs[0])}, nil
		}),
	})
	for _, c := range []struct{ src, want string }{
		{"l = []\nl.append(1)\nl.append(2)\nr = l", "[1, 2]"},
		{"d = {'a': 1}\nr = (d.get('a'), d.get('b'), d.get('b', 3))", "(1, None, 3)"},
		{"r = 'a,b'.split(',') + 'a b c'.split(' ', 1)", `["a", "b", "a", "b c"]`},
		{"r = 'a,b'.split(*[','])", `["a", "b"]`},
		{"a, b = [1], [2, 3]\na.append(b.pop())\nr = (a, b)", "([1, 3], [2])"},
		{"l = []\nf = l.append\nf(1)\nr = (l, type(f))", "([1], \"builtin_function_or_method\")"},
		{"s = set([1])\ns.add(2)\nr = (sorted(s), b'ab'.elems())", `([1, 2], b"ab".elems())`},
		{"r = obj.f(1, 2, k=3)", `("f", (1, 2), ("k", 3))`},
		{"r = [].nosuch(fail('arguments evaluated'))", "error: list has no .nosuch field or method"},
		{"r = [].apend(1)", "error: list has no .apend field or method (did you mean .append?)"},
		{"r = [].pop()", "error: pop: index -1 out of range: empty list"},
		{"r = 'a'.split(sep=',')", "error: split: unexpected keyword arguments"},
		{"r = {}.get()", "error: get: got 0 arguments, want at least 1"},
		{"r = {}.get(key=1)", "error: get: unexpected keyword arguments"},
		{"r = obj.g(1)", "error: struct has no .g attribute"},
	} {
		thread := &starlark.Thread{}
		globals, err := starlark.ExecFile(thread, "t.star", c.src, starlark.StringDict{"obj": obj})
		got := ""
		if err != nil {
			got = "error: " + err.(*starlark.EvalError).Msg
		} else {
			got = globals["r"].String()
		}
		if got != c.want {
			t.Errorf("%q: got %s, want %s", c.src, got, c.want)
		}
	}

	// A method call counts the steps of the attribute and the call.
	steps := func(src string) uint64 {
		thread := &starlark.Thread{}
		if _, err := starlark.ExecFile(thread, "t.star", src, nil); err != nil {
			t.Fatal(err)
		}
		return thread.ExecutionSteps()
	}
	if bound, unbound := steps("def f(l):\n    (l.append)(1)\nf([])"), steps("def f(l):\n    l.append(1)\nf([])"); bound != unbound {
		t.Errorf("method calls counted %d steps, calls of the bound method %d", unbound, bound)
	}

	// The methods of the built-in types borrow their arguments.
	for _, x := range []starlark.HasAttrs{starlark.NewList(nil), starlark.NewDict(0), starlark.String(""), starlark.NewSet(0), starlark.Bytes("")} {
		for _, name := range x.AttrNames() {
			m, _ := x.Attr(name)
			if b, ok := m.(starlark.ArgsBorrower); !ok || !b.BorrowsArgs() {
				t.Errorf("%s.%s does not borrow its arguments", x.Type(), name)
			}
		}
	}
}

// TestSmallIntFastPaths checks the interpreter's fast paths for + - and
// comparisons of ints against Binary and Compare, at the edges of the
// int32 and int64 ranges and beyond.
func TestSmallIntFastPaths(t *testing.T) {
	var vals []starlark.Value
	for _, s := range []string{"0", "1", "-1", "2147483647", "2147483648", "-2147483648", "-2147483649",
		"9223372036854775807", "-9223372036854775808", "9223372036854775806", "-9223372036854775807",
		"18446744073709551616", "-18446744073709551616"} {
		b, _ := new(big.Int).SetString(s, 10)
		vals = append(vals, starlark.MakeBigInt(b))
	}
	ops := []syntax.Token{syntax.PLUS, syntax.MINUS, syntax.EQL, syntax.NEQ, syntax.LT, syntax.LE, syntax.GT, syntax.GE}
	for _, x := range vals {
		for _, y := range vals {
			for _, op := range ops {
				var want starlark.Value
				if op == syntax.PLUS || op == syntax.MINUS {
					want, _ = starlark.Binary(op, x, y)
				} else {
					ok, _ := starlark.Compare(op, x, y)
					want = starlark.Bool(ok)
				}
				src := "x " + op.String() + " y"
				got, err := starlark.Eval(&starlark.Thread{}, "t", src, starlark.StringDict{"x": x, "y": y})
				if err != nil || got.String() != want.String() {
					t.Errorf("%s %s %s = %v, %v; want %v", x, op, y, got, err, want)
				}
				if op == syntax.PLUS {
					got, err := starlark.ExecFile(&starlark.Thread{}, "t", "def f():\n    z = x\n    z += y\n    return z\nz = f()", starlark.StringDict{"x": x, "y": y})
					if err != nil || got["z"].String() != want.String() {
						t.Errorf("%s += %s gives %v, %v; want %v", x, y, got["z"], err, want)
					}
				}
			}
		}
	}
}

// TestBoolArithmetic: a bool operand is an int for arithmetic and
// repetition; two bools under & | ^ stay a bool; a bool does not become
// an int where the other operand takes no int.
func TestBoolArithmetic(t *testing.T) {
	for src, want := range map[string]string{
		"True + 1": "2", "1 + True": "2", "True + True": "2", "True * 3": "3", "-True": "-1",
		"+False": "0", "~True": "-2", "True - 1.5": "-0.5", "2.0 * True": "2.0", "True // 1": "1",
		"True % 2": "1", "1 << True": "2", "True << 2": "4", "'ab' * True": `"ab"`, "[7] * True": "[7]",
		"(1,) * False": "()", "True & False": "False", "True | False": "True", "True ^ True": "False",
		"True & 3": "1", "6 | True": "7",
	} {
		v, err := starlark.Eval(&starlark.Thread{}, "t", src, nil)
		if err != nil || v.String() != want {
			t.Errorf("%s = %v, %v; want %s", src, v, err, want)
		}
	}
	for _, src := range []string{"True + 'a'", "'a' + True", "[1] + True", "True in True"} {
		if v, err := starlark.Eval(&starlark.Thread{}, "t", src, nil); err == nil {
			t.Errorf("%s = %v, want an error", src, v)
		}
	}
}

// plainTupleHash is the tuple hash without memory, as upstream computes it.
func plainTupleHash(t starlark.Tuple) uint32 {
	var x, mult uint32 = 0x345678, 1000003
	for _, elem := range t {
		var y uint32
		if et, ok := elem.(starlark.Tuple); ok {
			y = plainTupleHash(et)
		} else {
			y, _ = elem.Hash()
		}
		x = x ^ y*mult
		mult += 82520 + uint32(len(t)+len(t))
	}
	return x
}

// TestSharedTupleHash: a tuple that shares its parts hashes in time
// linear in its distinct tuples (t = (t, t) sixty times has 2**60 paths),
// to the same value as the plain recursion gives where that one ends.
func TestSharedTupleHash(t *testing.T) {
	build := func(depth int) starlark.Tuple {
		x := starlark.Tuple{starlark.MakeInt(7), starlark.String("x")}
		for range depth {
			x = starlark.Tuple{x, starlark.MakeInt(depth), x}
		}
		return x
	}
	small := build(14) // 3 * 2**14 elements visited: past the memo's start
	got, err := small.Hash()
	if err != nil || got != plainTupleHash(small) {
		t.Fatalf("hash %d, %v; plain recursion %d", got, err, plainTupleHash(small))
	}
	done := make(chan struct{})
	go func() {
		build(60).Hash()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // 2**60 paths would take centuries
		t.Fatal("hashing a tuple that shares its parts sixty deep did not end")
	}
}
