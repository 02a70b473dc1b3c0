package core

import (
	"fmt"
	"unicode/utf8"
	"unsafe"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Subscripts with Python semantics: x[k] and x[lo:hi:step]. A str is
// indexed and sliced by code point (go.starlark.net works on UTF-8
// bytes), an instance's __getitem__ receives slice objects, and errors
// are worded as CPython's.

func init() {
	TypeSlice.New = newSlice
	TypeSlice.has = func(v starlark.Value) bool { _, ok := v.(*Slice); return ok }
}

func SaIndex(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 || len(kwargs) != 0 {
		return nil, Errorf(pyexc.TypeError, "%s takes 2 arguments", contract.HelperIndex)
	}
	return Subscript(th, args[0], args[1])
}

func SaSlice(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 4 || len(kwargs) != 0 {
		return nil, Errorf(pyexc.TypeError, "%s takes 4 arguments", contract.HelperSlice)
	}
	return sliceOf(th, args[0], args[1], args[2], args[3])
}

// Subscript is Python's x[k].
func Subscript(th *starlark.Thread, x, k starlark.Value) (starlark.Value, error) {
	if sl, ok := k.(*Slice); ok {
		if _, isInst := x.(*Instance); !isInst {
			return sliceOf(th, x, sl.start, sl.stop, sl.step)
		}
	}
	switch x := x.(type) {
	case *starlark.List:
		i, err := seqIndex("list", x.Len(), k)
		if err != nil {
			return nil, err
		}
		return x.Index(i), nil
	case starlark.Tuple:
		i, err := seqIndex("tuple", len(x), k)
		if err != nil {
			return nil, err
		}
		return x[i], nil
	case starlark.String:
		return strSubscript(th, string(x), k)
	case starlark.Bytes:
		i, err := seqIndex("bytes", len(x), k)
		if err != nil {
			return nil, err
		}
		return starlark.MakeInt(int(x[i])), nil
	case *starlark.Dict:
		v, found, err := x.GetOn(th, k) // a long comparison of keys honours the deadline
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, keyError(k)
		}
		return v, nil
	case starlark.Mapping: // instances, Counter, ...
		v, found, err := x.Get(k)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, keyError(k)
		}
		return v, nil
	case starlark.Indexable:
		i, err := seqIndex(TypeName(x), x.Len(), k)
		if err != nil {
			return nil, err
		}
		return x.Index(i), nil
	}
	return nil, Errorf(pyexc.TypeError, "'%s' object is not subscriptable", TypeName(x))
}

// keyError is KeyError(k), whose message is the key's repr.
func keyError(k starlark.Value) error {
	return KeyError(k, Repr(k))
}

// KeyError is KeyError(k) with r, the repr of k, as its message.
func KeyError(k starlark.Value, r string) *Error {
	e := Errorf(pyexc.KeyError, "%s", r)
	e.Args = starlark.Tuple{k}
	return e
}

// seqIndex turns an index of a sequence of length n into a position.
func seqIndex(typ string, n int, k starlark.Value) (int, error) {
	var i int
	if inst, ok := k.(*Instance); ok {
		// An IntEnum member or an object with __index__.
		if _, isInt := enumOperand(inst).(starlark.Int); isInt || inst.Dunder("__index__") != nil {
			n, err := Index(inst)
			if err != nil {
				return 0, err
			}
			k = n
		}
	}
	switch k := k.(type) {
	case starlark.Int:
		v, ok := k.Int64()
		if !ok {
			return 0, Errorf(pyexc.IndexError, "cannot fit 'int' into an index-sized integer")
		}
		i = int(v)
	case starlark.Bool:
		if k {
			i = 1
		}
	default:
		if typ == "str" {
			return 0, Errorf(pyexc.TypeError, "string indices must be integers, not '%s'", TypeName(k))
		}
		return 0, Errorf(pyexc.TypeError, "%s indices must be integers or slices, not %s", typ, TypeName(k))
	}
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		switch typ {
		case "str":
			return 0, Errorf(pyexc.IndexError, "string index out of range")
		case "bytes":
			return 0, Errorf(pyexc.IndexError, "index out of range")
		}
		return 0, Errorf(pyexc.IndexError, "%s index out of range", typ)
	}
	return i, nil
}

// strCacheKey is the thread-local slot of the code point table of the
// string indexed last, so that a loop indexing one long string by
// position does not count its code points at every step.
const strCacheKey = "sa.strindex"

type strTable struct {
	s       string  // kept, so that its bytes cannot be reused while cached
	ascii   bool    // every code point is one byte
	offsets []int32 // byte offset of each code point, when not ascii
}

// maxTable bounds the strings whose offsets are tabulated (4 bytes per
// code point); longer ones are scanned at each access.
const maxTable = 1 << 20

// codePoints describes s: whether it is ASCII and, for a non-ASCII
// string short enough, the byte offset of each code point.
func codePoints(th *starlark.Thread, s string) *strTable {
	if len(s) < 64 || th == nil {
		if isASCII(s) {
			return &strTable{s: s, ascii: true}
		}
		return &strTable{s: s}
	}
	if t, ok := th.Local(strCacheKey).(*strTable); ok && len(t.s) == len(s) && unsafe.StringData(t.s) == unsafe.StringData(s) {
		return t
	}
	t := &strTable{s: s, ascii: isASCII(s)}
	if !t.ascii && len(s) <= maxTable {
		t.offsets = make([]int32, 0, utf8.RuneCountInString(s))
		for i := range s {
			t.offsets = append(t.offsets, int32(i))
		}
	}
	th.SetLocal(strCacheKey, t)
	return t
}

// runeAt returns the i'th code point of the non-ASCII string t.s as a
// string.
func (t *strTable) runeAt(i int) string {
	if t.offsets != nil {
		start := int(t.offsets[i])
		end := len(t.s)
		if i+1 < len(t.offsets) {
			end = int(t.offsets[i+1])
		}
		return t.s[start:end]
	}
	n := 0
	for off, r := range t.s {
		if n == i {
			return t.s[off : off+utf8.RuneLen(r)]
		}
		n++
	}
	return ""
}

func strSubscript(th *starlark.Thread, s string, k starlark.Value) (starlark.Value, error) {
	t := codePoints(th, s)
	n := len(s)
	if !t.ascii {
		n = utf8.RuneCountInString(s)
		if t.offsets != nil {
			n = len(t.offsets)
		}
	}
	i, err := seqIndex("str", n, k)
	if err != nil {
		return nil, err
	}
	if t.ascii {
		return starlark.String(s[i : i+1]), nil
	}
	return starlark.String(t.runeAt(i)), nil
}

// sliceOf is x[lo:hi:step].
func sliceOf(th *starlark.Thread, x, lo, hi, step starlark.Value) (starlark.Value, error) {
	switch v := x.(type) {
	case starlark.String:
		return strSlice(th, string(v), lo, hi, step)
	case *Instance:
		return Subscript(th, v, &Slice{start: lo, stop: hi, step: step})
	case starlark.Sliceable:
		start, stop, st, count, err := sliceIndices(v.Len(), lo, hi, step)
		if err != nil {
			return nil, err
		}
		if err := Alloc(th, int64(count)*ElemSize); err != nil {
			return nil, err
		}
		if count == 0 {
			stop = start
		}
		return v.Slice(start, stop, st), nil
	}
	if _, ok := x.(starlark.Mapping); ok {
		return nil, Errorf(pyexc.TypeError, "unhashable type: 'slice'")
	}
	return nil, Errorf(pyexc.TypeError, "'%s' object is not subscriptable", TypeName(x))
}

func strSlice(th *starlark.Thread, s string, lo, hi, step starlark.Value) (starlark.Value, error) {
	t := codePoints(th, s)
	if t.ascii {
		start, _, st, count, err := sliceIndices(len(s), lo, hi, step)
		if err != nil {
			return nil, err
		}
		if st == 1 {
			return starlark.String(s[start : start+count]), nil
		}
		if err := Alloc(th, int64(count)); err != nil {
			return nil, err
		}
		b := make([]byte, count)
		for k, i := 0, start; k < count; k, i = k+1, i+st {
			b[k] = s[i]
		}
		return starlark.String(b), nil
	}
	offsets := t.offsets
	if offsets == nil {
		offsets = make([]int32, 0, utf8.RuneCountInString(s))
		if err := Alloc(th, int64(cap(offsets))*4); err != nil {
			return nil, err
		}
		for i := range s {
			offsets = append(offsets, int32(i))
		}
	}
	n := len(offsets)
	start, _, st, count, err := sliceIndices(n, lo, hi, step)
	if err != nil {
		return nil, err
	}
	at := func(i int) int {
		if i >= n {
			return len(s)
		}
		return int(offsets[i])
	}
	if st == 1 {
		return starlark.String(s[at(start):at(start+count)]), nil
	}
	if err := Alloc(th, int64(count)*utf8.UTFMax); err != nil {
		return nil, err
	}
	b := make([]byte, 0, count)
	for k, i := 0, start; k < count; k, i = k+1, i+st {
		b = append(b, s[at(i):at(i+1)]...)
	}
	return starlark.String(b), nil
}

// Slice is Python's slice object, which an instance's __getitem__
// receives for x[lo:hi:step] and slice(...) builds.
type Slice struct {
	start, stop, step starlark.Value
}

var (
	_ starlark.HasAttrs = (*Slice)(nil)
	_ Typed             = (*Slice)(nil)
)

func (s *Slice) String() string {
	return fmt.Sprintf("slice(%s, %s, %s)", Repr(s.start), Repr(s.stop), Repr(s.step))
}
func (s *Slice) Type() string           { return "slice" }
func (s *Slice) Freeze()                {}
func (s *Slice) Truth() starlark.Bool   { return true }
func (s *Slice) PyType() starlark.Value { return TypeSlice }
func (s *Slice) Hash() (uint32, error) {
	return 0, Errorf(pyexc.TypeError, "unhashable type: 'slice'")
}

// CompareSameType compares slices as the tuples (start, stop, step), as
// CPython does.
func (s *Slice) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	t := y.(*Slice)
	return starlark.CompareDepth(op, starlark.Tuple{s.start, s.stop, s.step}, starlark.Tuple{t.start, t.stop, t.step}, depth)
}

// Attr returns start, stop, step and the indices method.
func (s *Slice) Attr(name string) (starlark.Value, error) {
	switch name {
	case "start":
		return s.start, nil
	case "stop":
		return s.stop, nil
	case "step":
		return s.step, nil
	case "indices":
		return starlark.NewBuiltin("indices", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var n int
			if err := starlark.UnpackPositionalArgs("indices", args, kwargs, 1, &n); err != nil {
				return nil, Errorf(pyexc.TypeError, "%s", err)
			}
			if n < 0 {
				return nil, Errorf(pyexc.ValueError, "length should not be negative")
			}
			start, stop, st, _, err := sliceIndices(n, s.start, s.stop, s.step)
			if err != nil {
				return nil, err
			}
			return starlark.Tuple{starlark.MakeInt(start), starlark.MakeInt(stop), starlark.MakeInt(st)}, nil
		}), nil
	}
	return nil, Errorf(pyexc.AttributeError, "'slice' object has no attribute '%s'", name)
}

// AttrNames lists the attributes.
func (s *Slice) AttrNames() []string { return []string{"indices", "start", "step", "stop"} }

// newSlice is slice(stop) / slice(start, stop[, step]).
func newSlice(_ *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) != 0 {
		return nil, Errorf(pyexc.TypeError, "slice() takes no keyword arguments")
	}
	switch len(args) {
	case 1:
		return &Slice{start: starlark.None, stop: args[0], step: starlark.None}, nil
	case 2:
		return &Slice{start: args[0], stop: args[1], step: starlark.None}, nil
	case 3:
		return &Slice{start: args[0], stop: args[1], step: args[2]}, nil
	case 0:
		return nil, Errorf(pyexc.TypeError, "slice expected at least 1 argument, got 0")
	}
	return nil, Errorf(pyexc.TypeError, "slice expected at most 3 arguments, got %d", len(args))
}
