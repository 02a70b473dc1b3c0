package builtins

import (
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Names of the guarded concatenation helpers. The front end lowers a + b
// (when neither operand is a literal) and x += y to them: concatenation is
// the one core operator besides repetition whose result can double in a
// single interpreter step (s = s + s), faster than any periodic check can
// see, so it asks the budget first. A literal operand adds a bounded amount
// per step, which the engine's periodic measurement catches.
const (
	HelperAdd  = "__sa_add"  // __sa_add(a, b) is a + b
	HelperIAdd = "__sa_iadd" // __sa_iadd(a, b) is a += b: lists extend in place
)

// Add and IAdd are the builtins named HelperAdd and HelperIAdd.
var (
	Add  = starlark.NewBuiltin(HelperAdd, add)
	IAdd = starlark.NewBuiltin(HelperIAdd, iadd)
)

func add(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 || len(kwargs) != 0 {
		return nil, Errorf("TypeError", "%s takes 2 arguments", b.Name())
	}
	if err := allocConcat(thread, args[0], args[1]); err != nil {
		return nil, err
	}
	x, y := arith(args[0], args[1])
	return starlark.Binary(syntax.PLUS, x, y)
}

func iadd(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 || len(kwargs) != 0 {
		return nil, Errorf("TypeError", "%s takes 2 arguments", b.Name())
	}
	list, ok := args[0].(*starlark.List)
	if !ok {
		return add(thread, b, args, kwargs)
	}
	// list += iterable extends the list in place, as in Python.
	iterable, ok := args[1].(starlark.Iterable)
	if !ok {
		return nil, Errorf("TypeError", "'%s' object is not iterable", args[1].Type())
	}
	if n := starlark.Len(args[1]); n > 0 {
		if err := Alloc(thread, int64(n)*16); err != nil {
			return nil, err
		}
	}
	iter := iterable.Iterate()
	defer iter.Done()
	var x starlark.Value
	for i := 0; iter.Next(&x); i++ {
		if i%4096 == 4095 {
			if err := Interrupted(thread); err != nil {
				return nil, err
			}
			if err := Alloc(thread, 4096*16); err != nil {
				return nil, err
			}
		}
		if err := list.Append(x); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// allocConcat charges the budget for the result of x + y when it is a
// sequence; numbers and other values cost nothing worth counting.
func allocConcat(thread *starlark.Thread, x, y starlark.Value) error {
	var n int64
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
	if n < 1<<16 {
		return nil
	}
	return Alloc(thread, n)
}
