package core

import (
	"hash/maphash"
	"math"
	"strconv"

	"github.com/star-agent/star-agent/vm/starlark"
)

// idSeed keys the hash that id() derives from an object's identity: the
// integers are stable for the life of the process, equal exactly when
// the objects are identical (Identical, Python's "is"), and reveal
// nothing about memory addresses.
var idSeed = maphash.MakeSeed()

// PyID is id(x): an integer that identifies x among the objects alive
// with it. Values that Identical compares by value (None, bools, numbers,
// strings, bytes) hash their value; the others their identity.
func PyID(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("id", args, kwargs)
	if err != nil {
		return nil, err
	}
	var h maphash.Hash
	h.SetSeed(idSeed)
	switch v := x.(type) {
	case starlark.NoneType:
		h.WriteByte('N')
	case starlark.Bool:
		h.WriteByte('B')
		if v {
			h.WriteByte(1)
		}
	case starlark.Int:
		h.WriteByte('i')
		b := v.BigInt()
		h.WriteByte(byte(b.Sign() + 1))
		h.Write(b.Bytes())
	case starlark.Float:
		h.WriteByte('f')
		f := float64(v)
		if f == 0 {
			f = 0 // -0.0 is 0.0, as Identical compares them
		}
		bits := math.Float64bits(f)
		for i := 0; i < 8; i++ {
			h.WriteByte(byte(bits >> (8 * i)))
		}
	case starlark.String:
		h.WriteByte('s')
		h.WriteString(string(v))
	case starlark.Bytes:
		h.WriteByte('b')
		h.WriteString(string(v))
	case starlark.Tuple:
		h.WriteByte('t')
		if len(v) > 0 {
			maphash.WriteComparable(&h, &v[0])
			h.WriteByte(byte(len(v)))
		}
	default:
		writeIdentity(&h, x)
	}
	return starlark.MakeUint64(h.Sum64() >> 2), nil
}

// Address is what a repr shows as the address of x, an object of a
// reference type: hex(id(x)), as in CPython, and no memory address.
func Address(x starlark.Value) string {
	var h maphash.Hash
	h.SetSeed(idSeed)
	writeIdentity(&h, x)
	return "0x" + strconv.FormatUint(h.Sum64()>>2, 16)
}

// writeIdentity hashes the identity of a value of another type: its
// pointer for reference types; a value of an uncomparable type (none of
// the engine's values is one) hashes only its type.
func writeIdentity(h *maphash.Hash, x starlark.Value) {
	defer func() {
		if recover() != nil {
			h.WriteString(x.Type())
		}
	}()
	h.WriteByte('o')
	maphash.WriteComparable(h, x)
}
