package core

import (
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// unpacker is the value bound to HelperUnpack: indexing it by the number
// of targets gives that count's guard.
type unpacker struct {
	guards [contract.MaxUnpack + 1]unpackGuard
}

func NewUnpacker(box *ThreadBox) *unpacker {
	u := &unpacker{}
	for n := range u.guards {
		u.guards[n] = unpackGuard{box: box, n: n}
	}
	return u
}

func (u *unpacker) String() string        { return "<unpacker>" }
func (u *unpacker) Type() string          { return "unpacker" }
func (u *unpacker) Freeze()               {}
func (u *unpacker) Truth() starlark.Bool  { return true }
func (u *unpacker) Hash() (uint32, error) { return uint32(UintptrOf(u)), nil }

func (u *unpacker) Get(k starlark.Value) (starlark.Value, bool, error) {
	n, err := starlark.AsInt32(k)
	if err != nil || n < 0 || n > contract.MaxUnpack {
		return nil, false, Errorf(pyexc.TypeError, "misuse of %s", contract.HelperUnpack)
	}
	return &u.guards[n], true, nil
}

// unpackGuard drains a generator into n+1 values at most (n = 0: all).
type unpackGuard struct {
	box *ThreadBox
	n   int
}

func (g *unpackGuard) String() string        { return "<unpack guard>" }
func (g *unpackGuard) Type() string          { return "unpack_guard" }
func (g *unpackGuard) Freeze()               {}
func (g *unpackGuard) Truth() starlark.Bool  { return true }
func (g *unpackGuard) Hash() (uint32, error) { return uint32(UintptrOf(g)), nil }

func (g *unpackGuard) Binary(op syntax.Token, x starlark.Value, side starlark.Side) (starlark.Value, error) {
	if op != syntax.PERCENT || side != starlark.Left {
		return nil, Errorf(pyexc.TypeError, "misuse of %s", contract.HelperUnpack)
	}
	switch x := x.(type) {
	case *Iterator, *Instance:
	case starlark.String:
		// go.starlark.net does not iterate a str; n+1 characters tell a
		// count that does not match.
		if g.n > 0 {
			return strItems(x, g.n+1), nil
		}
	case starlark.Bytes:
		if g.n == 0 {
			if err := Alloc(g.box.current(), int64(len(x))*ElemSize); err != nil {
				return nil, err
			}
		}
		out := make(starlark.Tuple, 0, min(len(x), g.n+1))
		for i := 0; i < len(x) && (g.n == 0 || len(out) <= g.n); i++ {
			out = append(out, starlark.MakeInt(int(x[i])))
		}
		return out, nil
	case *starlark.Set:
		// In CPython's order, not go.starlark.net's insertion order.
		if th := g.box.current(); th != nil {
			if err := Alloc(th, int64(x.Len())*ElemSize); err != nil {
				return nil, err
			}
		}
		return starlark.Tuple(setElements(x)), nil
	case starlark.Int, starlark.Float, starlark.Bool, starlark.NoneType:
		return nil, Errorf(pyexc.TypeError, "cannot unpack non-iterable %s object", TypeName(x))
	default:
		if _, ok := x.(starlark.Iterable); !ok {
			return nil, Errorf(pyexc.TypeError, "cannot unpack non-iterable %s object", TypeName(x))
		}
		return x, nil
	}
	th := g.box.current()
	if th == nil {
		return nil, Errorf(pyexc.RuntimeError, "cannot unpack a %s outside an execution", TypeName(x))
	}
	if g.n == 0 {
		vals, err := Collect(th, x)
		return starlark.Tuple(vals), err
	}
	it, err := PyIter(th, x)
	if err != nil {
		return nil, err
	}
	out := make(starlark.Tuple, 0, g.n+1)
	for len(out) <= g.n {
		v, ok, err := it.NextOn(th)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		out = append(out, v)
	}
	return out, nil
}

// strItems is the first max characters (code points) of s.
func strItems(s starlark.String, max int) starlark.Tuple {
	out := make(starlark.Tuple, 0, min(len(s), max))
	for _, r := range string(s) {
		if len(out) == max {
			break
		}
		out = append(out, starlark.String(string(r)))
	}
	return out
}

// SaUnstar implements contract.HelperUnstar.
func SaUnstar(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	var n, m int
	if err := starlark.UnpackPositionalArgs(contract.HelperUnstar, args, kwargs, 3, &x, &n, &m); err != nil {
		return nil, err
	}
	var items starlark.Tuple
	switch v := x.(type) {
	case starlark.Tuple:
		items = v
	default:
		_, isStr := x.(starlark.String)
		_, isBytes := x.(starlark.Bytes)
		if _, ok := x.(starlark.Iterable); !ok && !isStr && !isBytes {
			return nil, Errorf(pyexc.TypeError, "cannot unpack non-iterable %s object", TypeName(x))
		}
		vals, err := Collect(th, x)
		if err != nil {
			return nil, err
		}
		items = vals
	}
	if len(items) < n+m {
		return nil, Errorf(pyexc.ValueError, "not enough values to unpack (expected at least %d, got %d)", n+m, len(items))
	}
	if err := Alloc(th, int64(len(items)-n-m)*ElemSize); err != nil {
		return nil, err
	}
	out := make(starlark.Tuple, 0, n+m+1)
	out = append(out, items[:n]...)
	out = append(out, starlark.NewList(append([]starlark.Value(nil), items[n:len(items)-m]...)))
	return append(out, items[len(items)-m:]...), nil
}
