package builtins

import (
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// HelperUnpack: a, b = __sa_unpack[2] % x is a, b = x. go.starlark.net
// unpacks by iterating x, and its iterators have no way to report an
// error: a generator that raises while being unpacked would look
// exhausted, giving "not enough values" instead of its exception, or no
// error at all when it raises after its last value. The guard drains a
// generator or an iterable instance itself, at most one value more than
// the targets as Python does, so that its exception surfaces; a list,
// tuple or any other value passes through untouched (an operator, not a
// call: see add.go for why). __sa_unpack[0] drains without bound, for
// starred targets.
const HelperUnpack = "__sa_unpack"

// MaxUnpack is the largest count with a guard of its own; above it the
// front end uses __sa_unpack[0].
const MaxUnpack = 16

// unpacker is the value bound to HelperUnpack: indexing it by the number
// of targets gives that count's guard.
type unpacker struct{ guards [MaxUnpack + 1]unpackGuard }

func newUnpacker(box *ThreadBox) *unpacker {
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
func (u *unpacker) Hash() (uint32, error) { return uint32(uintptrOf(u)), nil }

func (u *unpacker) Get(k starlark.Value) (starlark.Value, bool, error) {
	n, err := starlark.AsInt32(k)
	if err != nil || n < 0 || n > MaxUnpack {
		return nil, false, Errorf("TypeError", "misuse of %s", HelperUnpack)
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
func (g *unpackGuard) Hash() (uint32, error) { return uint32(uintptrOf(g)), nil }

func (g *unpackGuard) Binary(op syntax.Token, x starlark.Value, side starlark.Side) (starlark.Value, error) {
	if op != syntax.PERCENT || side != starlark.Left {
		return nil, Errorf("TypeError", "misuse of %s", HelperUnpack)
	}
	switch x.(type) {
	case *Iterator, *Instance:
	default:
		return x, nil
	}
	th := g.box.current()
	if th == nil {
		return nil, Errorf("RuntimeError", "cannot unpack a %s outside an execution", TypeName(x))
	}
	if g.n == 0 {
		vals, err := collect(th, x)
		return starlark.Tuple(vals), err
	}
	it, err := pyIter(th, x)
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
