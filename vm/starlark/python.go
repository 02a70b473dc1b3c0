// Copyright 2026 The star-agent Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package starlark

// This file holds star-agent's additions to the value model for Python's
// semantics: truth and cross-type equality computed by user code (a
// class's __bool__, __len__ and __eq__), which can fail. They live in a
// file of their own so that merges from upstream touch them rarely.

import (
	"fmt"
	"math"
	"math/big"

	"github.com/star-agent/star-agent/vm/syntax"
)

// A FallibleTruth is a value whose truth is computed by code that can
// fail, such as an instance whose class defines __bool__. The
// interpreter's conditions, not, and the bool, all and any builtins ask
// it through TruthOf, so that the error propagates instead of being taken
// for false.
type FallibleTruth interface {
	Value
	TruthErr() (Bool, error)
}

// TruthOf is v's truth value, with the error of a FallibleTruth.
func TruthOf(v Value) (Bool, error) {
	switch v := v.(type) {
	case Bool:
		return v, nil
	case FallibleTruth:
		return v.TruthErr()
	}
	return v.Truth(), nil
}

// A CrossComparable is a value that can compare itself with a value of
// another type, as Python's __eq__, __ne__, __lt__ and the others do. ok
// is false when it has no answer (Python's NotImplemented): the other
// operand is asked in turn (with the operator reflected), and if neither
// answers, values of different types are unequal, and not ordered.
//
// Its dynamic type must be comparable (a pointer): Equal, which
// containers use, takes such a value to equal itself without asking it,
// as Python's containers do (x in [x] is true even if x.__eq__ raises).
type CrossComparable interface {
	Value
	CompareOther(op syntax.Token, y Value, depth int) (result, ok bool, err error)
}

// compareOther is x op y between values of different types when one of
// them is a CrossComparable: x is asked first, then y with the operator
// reflected (x < y is y > x), as Python asks x.__lt__ then y.__gt__.
func compareOther(op syntax.Token, x, y Value, depth int) (result, ok bool, err error) {
	if xc, isCC := x.(CrossComparable); isCC {
		if r, ok, err := xc.CompareOther(op, y, depth); ok || err != nil {
			return r, true, err
		}
	}
	if yc, isCC := y.(CrossComparable); isCC {
		if r, ok, err := yc.CompareOther(reflectedOp(op), x, depth); ok || err != nil {
			return r, true, err
		}
	}
	return false, false, nil
}

// reflectedOp is the operator that compares y with x as op compares x with y.
func reflectedOp(op syntax.Token) syntax.Token {
	switch op {
	case syntax.LT:
		return syntax.GT
	case syntax.GT:
		return syntax.LT
	case syntax.LE:
		return syntax.GE
	case syntax.GE:
		return syntax.LE
	}
	return op
}

// intTrueDiv is x / y for ints as Python computes it: the quotient
// correctly rounded to a float, so that 10**400 / 10**399 is 10.0 rather
// than an error, and an error only when the quotient itself is too large.
func intTrueDiv(x, y Int) (Value, error) {
	if y.Sign() == 0 {
		return nil, fmt.Errorf("floating-point division by zero")
	}
	const exact = 1 << 53 // ints of up to 53 bits convert exactly
	if xs, ok := x.Int64(); ok && -exact <= xs && xs <= exact {
		if ys, ok := y.Int64(); ok && -exact <= ys && ys <= exact {
			return Float(float64(xs) / float64(ys)), nil
		}
	}
	f, _ := new(big.Rat).SetFrac(x.BigInt(), y.BigInt()).Float64()
	if math.IsInf(f, 0) {
		return nil, fmt.Errorf("integer division result too large for a float")
	}
	return Float(f), nil
}

// valueStack is a thread's store of the locals and operand stacks of the
// Starlark function calls in progress, so that a call does not allocate
// them (a make([]Value, n) per call was most of the cost of calling a
// small function). Calls take space from the current chunk, a bump
// allocator; a call that does not fit starts a new chunk twice as large,
// and the frames already in the old one keep it alive until they return.
type valueStack struct {
	chunk []Value
	top   int
}

// minValueChunk is the size of a thread's first chunk, in values.
const minValueChunk = 256

// take returns n cleared values and where they start in the chunk, for
// release.
func (vs *valueStack) take(n int) ([]Value, int) {
	if vs.top+n > len(vs.chunk) {
		size := max(2*len(vs.chunk), minValueChunk)
		for size < n {
			size *= 2
		}
		vs.chunk, vs.top = make([]Value, size), 0
	}
	start := vs.top
	vs.top += n
	return vs.chunk[start:vs.top:vs.top], start
}

// release gives back the values take returned, in LIFO order, when the
// call returns; they are cleared, so that they keep nothing alive and the
// next call finds its locals unbound.
func (vs *valueStack) release(space []Value, start int) {
	if len(space) == 0 {
		return
	}
	// A loop, not clear(space): the few values of a call are cleared
	// faster in line than by memclrHasPointers and its barrier call.
	for i := len(space) - 1; i >= 0; i-- {
		space[i] = nil
	}
	if start < len(vs.chunk) && &vs.chunk[start] == &space[0] {
		vs.top = start
	} else {
		// A callee started a newer chunk, which no call in
		// progress uses any more.
		vs.top = 0
	}
}

// An ArgsBorrower is a callable that neither keeps nor modifies the args
// slice it is called with once it returns (it may keep the values in it).
// The interpreter passes such a callee a view of the caller's operand
// stack, as it does a Starlark function, instead of a copy of its
// arguments (upstream copies them for every builtin, a slice allocated
// per call).
type ArgsBorrower interface {
	Callable
	BorrowsArgs() bool
}

// NewBorrowingBuiltin is NewBuiltin for a function that borrows its
// arguments (see ArgsBorrower). Its bound methods borrow too.
func NewBorrowingBuiltin(name string, fn func(thread *Thread, fn *Builtin, args Tuple, kwargs []Tuple) (Value, error)) *Builtin {
	return &Builtin{name: name, fn: fn, borrows: true}
}

// BorrowsArgs reports whether b was made by NewBorrowingBuiltin (or bound
// from one).
func (b *Builtin) BorrowsArgs() bool { return b.borrows }

// borrowsArgs reports a callee that may be passed a view of the stack.
func borrowsArgs(fn Value) bool {
	if b, ok := fn.(*Builtin); ok {
		return b.borrows
	}
	if b, ok := fn.(ArgsBorrower); ok {
		return b.BorrowsArgs()
	}
	return false
}

// ExecPythonChunk is ExecREPLChunk for the Python engine, whose universal
// names are Universe's except Starlark's own fail, which Python does not
// have: the code's fail is an undefined name (a NameError), not a builtin
// that ends the execution.
func ExecPythonChunk(f *syntax.File, thread *Thread, globals StringDict) error {
	return execREPLChunk(f, thread, globals, isPythonUniversal)
}

func isPythonUniversal(name string) bool { return name != "fail" && Universe.Has(name) }

// builtinMethod is the unbound method name of x when x is a value of a
// built-in type with a method table (what x.Attr(name) would bind), or
// nil: the interpreter's METHOD and CALL_METHOD instructions call it with
// x as its receiver, without allocating a bound method.
func builtinMethod(x Value, name string) *Builtin {
	var methods map[string]*Builtin
	switch x.(type) {
	case *List:
		methods = listMethods
	case *Dict:
		methods = dictMethods
	case String:
		methods = stringMethods
	case *Set:
		methods = setMethods
	case Bytes:
		methods = bytesMethods
	default:
		return nil
	}
	return methods[name]
}

// The methods of the built-in types keep neither their arguments slice
// nor the *Builtin they are called through (its receiver is a frame's,
// see CALL_METHOD): they borrow their arguments.
func init() {
	for _, methods := range []map[string]*Builtin{listMethods, dictMethods, stringMethods, setMethods, bytesMethods} {
		for _, m := range methods {
			m.borrows = true
		}
	}
}

// smallInts returns the values of x and y if both are ints that fit in
// an int64: the interpreter's fast path for int arithmetic and
// comparisons, which computes what Binary and Compare would without
// their dispatch.
func smallInts(x, y Value) (int64, int64, bool) {
	xi, ok := x.(Int)
	if !ok {
		return 0, 0, false
	}
	yi, ok := y.(Int)
	if !ok {
		return 0, 0, false
	}
	xs, xb := xi.get()
	ys, yb := yi.get()
	return xs, ys, xb == nil && yb == nil
}

// addSmallInts is x+y, or x-y if sub, when both are ints that fit in an
// int64 and so does the result; ok is false otherwise.
func addSmallInts(sub bool, x, y Value) (_ Value, ok bool) {
	xs, ys, ok := smallInts(x, y)
	if !ok {
		return nil, false
	}
	var z int64
	if sub {
		z, ok = sub64(xs, ys)
	} else {
		z, ok = add64(xs, ys)
	}
	if !ok {
		return nil, false
	}
	return makeSmallInt(z), true
}

func cmp64(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return +1
	}
	return 0
}

// Bool is a subtype of int in arithmetic, as in Python: True + 1 is 2,
// 'ab' * True is 'ab', -True is -1. Two bools under &, | and ^ stay a
// bool. Binary and Unary convert a bool operand to an int when the other
// operand takes an int: a number, or a sequence to repeat.

func boolInt(b Bool) Int {
	if b {
		return one
	}
	return zero
}

// boolBinary is op on two bools when its result is a bool (&, |, ^).
func boolBinary(op syntax.Token, x Bool, y Value) (Value, bool) {
	yb, ok := y.(Bool)
	if !ok {
		return nil, false
	}
	switch op {
	case syntax.AMP:
		return x && yb, true
	case syntax.PIPE:
		return x || yb, true
	case syntax.CIRCUMFLEX:
		return Bool(x != yb), true
	}
	return nil, false
}

// intOperand reports whether a bool operand of op, whose other operand
// is other, acts as an int.
func intOperand(op syntax.Token, other Value) bool {
	switch op {
	case syntax.PLUS, syntax.MINUS, syntax.SLASH, syntax.SLASHSLASH, syntax.PERCENT,
		syntax.AMP, syntax.PIPE, syntax.CIRCUMFLEX, syntax.LTLT, syntax.GTGT:
		switch other.(type) {
		case Int, Float, Bool:
			return true
		}
	case syntax.STAR:
		switch other.(type) {
		case Int, Float, Bool, String, Bytes, *List, Tuple:
			return true
		}
	}
	return false
}

// A tupleHasher hashes a tuple and the tuples nested in it. Tuples that
// share their parts (t = (t, t), sixty times) have exponentially many
// paths to their leaves: hashing each path, as upstream does, would
// never end, and a hash cannot look at a deadline (Hash has no thread).
// Once a hash has visited more than a few thousand elements, the hasher
// remembers the hash of each nested tuple it has seen (by its elements'
// address and length), so that its work is bounded by the distinct
// tuples, not the paths. The hashes are the same either way.
type tupleHasher struct {
	visited int
	memo    map[tupleKey]uint32
}

type tupleKey struct {
	first *Value
	n     int
}

func (h *tupleHasher) hash(t Tuple) (uint32, error) {
	var key tupleKey
	if h.memo != nil && len(t) > 0 {
		key = tupleKey{&t[0], len(t)}
		if x, ok := h.memo[key]; ok {
			return x, nil
		}
	}
	// Use same algorithm as Python.
	var x, mult uint32 = 0x345678, 1000003
	for _, elem := range t {
		h.visited++
		var y uint32
		var err error
		if et, ok := elem.(Tuple); ok {
			y, err = h.hash(et)
		} else {
			y, err = elem.Hash()
		}
		if err != nil {
			return 0, err
		}
		x = x ^ y*mult
		mult += 82520 + uint32(len(t)+len(t))
	}
	if h.visited > 4096 && len(t) > 0 {
		if h.memo == nil {
			h.memo = make(map[tupleKey]uint32)
		}
		h.memo[tupleKey{&t[0], len(t)}] = x
	}
	return x, nil
}
