package core

import (
	"reflect"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// go.starlark.net calls some methods of values without a thread
// (Comparable.CompareSameType, HasAttrs.Attr, Hashable.Hash, Truth, ...),
// yet an instance's __eq__, @property or __hash__ is user code that must
// run on the execution's thread, under its step, time and memory limits.
//
// Runtime() gives each executor a ThreadBox, bound to HelperBox in its
// globals; every lowered chunk starts with __sa_enter(__sa_box), which
// stores the chunk's thread in the box, and every class the chunk
// creates keeps the box. A thread-less call on an instance runs on the
// thread in its class's box: the thread of the execution in progress,
// since one executor runs one execution at a time.

// ThreadBox holds the thread of the execution in progress.
type ThreadBox struct{ th *starlark.Thread }

func (b *ThreadBox) String() string        { return "<thread box>" }
func (b *ThreadBox) Type() string          { return "thread_box" }
func (b *ThreadBox) Freeze()               {}
func (b *ThreadBox) Truth() starlark.Bool  { return true }
func (b *ThreadBox) Hash() (uint32, error) { return uint32(UintptrOf(b)), nil }

func SaEnter(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var box *ThreadBox
	if len(args) != 1 || len(kwargs) > 0 {
		return nil, Errorf(pyexc.TypeError, "%s takes 1 argument", contract.HelperEnter)
	}
	box, ok := args[0].(*ThreadBox)
	if !ok {
		return nil, Errorf(pyexc.TypeError, "%s: not a thread box", contract.HelperEnter)
	}
	box.th = th
	return starlark.None, nil
}

// current returns the thread running the execution in progress: the
// chunk's, or that of the generator it has resumed. Nil before the first
// execution.
func (b *ThreadBox) current() *starlark.Thread {
	th := b.th
	if th == nil {
		return nil
	}
	if g, ok := th.Local(generatorsKey).(*Generators); ok {
		if r := g.running(); r != nil {
			return r
		}
	}
	return th
}

// thread returns the thread to run c's user code on when the caller has
// none, or nil: the one running the execution in progress (a generator's,
// if the execution has resumed one), so that the code runs under the
// execution's deadline, steps and memory budget.
func (c *Class) thread() *starlark.Thread {
	if c.box == nil {
		return nil
	}
	return c.box.current()
}

// userThread returns the thread to run c's user code on for a caller on
// th: th itself, unless it is nil or a scratch thread (Repr, Str and
// Go-side String called where no thread was at hand), in which case the
// execution's, so that no user __repr__, __str__, __eq__ or __hash__ runs
// outside the execution's limits. It returns th when the class has no
// execution (nil if th is nil).
func (c *Class) userThread(th *starlark.Thread) *starlark.Thread {
	if th == nil || isScratch(th) {
		if t := c.thread(); t != nil {
			return t
		}
	}
	return th
}

// UintptrOf is the address of a pointer value, for identity hashes.
func UintptrOf(v any) uintptr {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		return rv.Pointer()
	}
	return 0
}
