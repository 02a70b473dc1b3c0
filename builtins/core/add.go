package core

import (
	"errors"
	"strings"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// PlusGuard is the value bound to HelperPlus or HelperIPlus.
type PlusGuard struct {
	Box     *ThreadBox // the executor's: where the guard finds the thread
	Inplace bool       // +=: a list on the left is extended in place
}

func (g *PlusGuard) String() string        { return "<plus guard>" }
func (g *PlusGuard) Type() string          { return "plus_guard" }
func (g *PlusGuard) Freeze()               {}
func (g *PlusGuard) Truth() starlark.Bool  { return true }
func (g *PlusGuard) Hash() (uint32, error) { return uint32(UintptrOf(g)), nil }

// Get wraps the left operand of the guarded +.
func (g *PlusGuard) Get(x starlark.Value) (starlark.Value, bool, error) {
	if i, ok := x.(starlark.Int); ok {
		if g.Inplace {
			return iplusInt{plusInt(i)}, true, nil
		}
		return plusInt(i), true, nil
	}
	return &plusOperand{x: x, g: g}, true, nil
}

// plusInt is an int on the left of a guarded +. It has starlark.Int's
// representation, so wrapping does not allocate.
type plusInt starlark.Int

func (p plusInt) String() string        { return starlark.Int(p).String() }
func (p plusInt) Type() string          { return "int" }
func (p plusInt) Freeze()               {}
func (p plusInt) Truth() starlark.Bool  { return starlark.Int(p).Truth() }
func (p plusInt) Hash() (uint32, error) { return starlark.Int(p).Hash() }

// Get is the int plus y.
func (p plusInt) Get(y starlark.Value) (starlark.Value, bool, error) {
	x := starlark.Int(p)
	if y, ok := y.(starlark.Int); ok {
		return x.Add(y), true, nil
	}
	// An int never concatenates: there is nothing to charge.
	a, b := Arith(x, y)
	z, err := starlark.Binary(syntax.PLUS, a, b)
	return z, true, err
}

// iplusInt is an int on the left of a guarded +=. (A struct of one
// pointer-shaped field does not allocate either.)
type iplusInt struct{ plusInt }

func (p iplusInt) Get(y starlark.Value) (starlark.Value, bool, error) {
	z, _, err := p.plusInt.Get(y)
	return z, true, augmented(err)
}

// augmented words an unsupported + as the += it was.
func augmented(err error) error {
	if err != nil && strings.HasPrefix(err.Error(), "unknown binary op: ") {
		return errors.New(strings.Replace(err.Error(), " + ", " += ", 1))
	}
	return err
}

// plusOperand is any other value on the left of a guarded +.
type plusOperand struct {
	x starlark.Value
	g *PlusGuard
}

func (p *plusOperand) String() string       { return p.x.String() }
func (p *plusOperand) Type() string         { return p.x.Type() }
func (p *plusOperand) Freeze()              {}
func (p *plusOperand) Truth() starlark.Bool { return p.x.Truth() }
func (p *plusOperand) Hash() (uint32, error) {
	return 0, Errorf(pyexc.TypeError, "unhashable type: '%s'", p.x.Type())
}

// Get is the operand plus y.
func (p *plusOperand) Get(y starlark.Value) (starlark.Value, bool, error) {
	th := p.g.Box.current()
	if th == nil {
		// No execution is in progress (a value's __repr__ rendered for the
		// host afterwards): bounded like a scratch thread.
		if n := concatSize(p.x, y); n > scratchMemory {
			return nil, true, Errorf(pyexc.MemoryError, "allocating %s outside an execution refused", FormatBytes(n))
		}
	}
	if p.g.Inplace {
		z, err := Iadd(th, p.x, y)
		return z, true, augmented(err)
	}
	z, err := Add(th, p.x, y)
	return z, true, err
}

// Add is x + y with the budget charged for a large concatenation.
func Add(thread *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
	if err := allocConcat(thread, x, y); err != nil {
		return nil, err
	}
	x, y = Arith(x, y)
	return starlark.Binary(syntax.PLUS, x, y)
}

// Iadd is x += y: a list on the left is extended in place, as in Python.
func Iadd(thread *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
	list, ok := x.(*starlark.List)
	if !ok {
		return Add(thread, x, y)
	}
	iterable, ok := y.(starlark.Iterable)
	if !ok {
		return nil, Errorf(pyexc.TypeError, "'%s' object is not iterable", y.Type())
	}
	if n := starlark.Len(y); n > 0 {
		// Appending grows the list's array a quarter at a time: while
		// the last copy is made, the old array and the new one, up to
		// twice the final length between them, are both live.
		if err := Alloc(thread, int64(list.Len()+n)*16*2); err != nil {
			return nil, err
		}
	}
	if y, ok := y.(*starlark.List); ok {
		// Indexed up to the length it had, so that a += a doubles a.
		for i, n := 0, y.Len(); i < n; i++ {
			if err := list.Append(y.Index(i)); err != nil {
				return nil, err
			}
		}
		return list, nil
	}
	iter := iterable.Iterate()
	defer iter.Done()
	var v starlark.Value
	for i := 0; iter.Next(&v); i++ {
		if i%4096 == 4095 {
			if err := Interrupted(thread); err != nil {
				return nil, err
			}
			if err := Alloc(thread, 4096*16); err != nil {
				return nil, err
			}
		}
		if err := list.Append(v); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// allocConcat charges the budget for the result of x + y when it is a
// sequence; numbers and other values cost nothing worth counting.
func allocConcat(thread *starlark.Thread, x, y starlark.Value) error {
	n := concatSize(x, y)
	if n < 1<<16 {
		return nil
	}
	return Alloc(thread, n)
}

// concatSize is the size in bytes of x + y if it is a concatenation, or 0.
func concatSize(x, y starlark.Value) (n int64) {
	switch x := x.(type) {
	case starlark.String:
		if y, ok := y.(starlark.String); ok {
			n = int64(len(x)) + int64(len(y))
		}
	case starlark.Bytes:
		if y, ok := y.(starlark.Bytes); ok {
			n = int64(len(x)) + int64(len(y))
		}
	case *starlark.List, starlark.Tuple:
		n = int64(starlark.Len(x)+max(starlark.Len(y), 0)) * 16
	}
	return n
}
