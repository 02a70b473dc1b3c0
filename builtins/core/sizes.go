package core

import (
	"math"
	"strings"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// What values take in memory, in one place, for the budget's grants and
// the engine's walk (executors/starlarkexec, sizer) alike: a builtin that grants
// what the walk will later count cannot be driven past the budget by the
// difference between the two.
//
// Measured on Go 1.26, linux/amd64, go.starlark.net v0.0.0-20260908: the
// live heap (runtime.MemStats.HeapAlloc after two runtime.GC calls) before
// and after building 2^20 values kept alive in a starlark.List, divided by
// 2^20. Per element of a list:
//
//	shared string            16   (the slot)
//	new 1-byte string        33   (slot, boxed header, data)
//	float                    24   (slot, boxed float64)
//	int outside int32        56   (slot, *big.Int: struct and one word)
//	1-tuple of small ints    56   (slot, boxed slice header, array)
//	2-tuple                  72
//	10-tuple                200
//	1-element list           64   (slot, List struct, array)
//	dict int -> int         114   per entry (presized or grown alike)
//	set of ints             114   per element
//
// Small ints (int32 range) are stored in the interface itself and take
// nothing beyond their slot. A slice grown by append (1.25x past 256
// elements) allocates in total about five times its final size; builtins
// that gather values of unknown count use gather, which doubles and
// charges every array it makes.
const (
	// SlotSize is an element of a list or tuple: one interface value.
	SlotSize = 16
	// TupleHeaderSize is the boxed slice header of a tuple held in an
	// interface, on top of its slots.
	TupleHeaderSize = 24
	// StringHeaderSize is the boxed header of a string held in an
	// interface, on top of its bytes.
	StringHeaderSize = 16
	// FloatSize is a boxed float64.
	FloatSize = 8
	// WideIntSize is an int outside int32's range: a big.Int and its first
	// word (further words: 8 bytes each).
	WideIntSize = 40
	// ListSize is a list's own struct, on top of its slots.
	ListSize = 48
	// DictEntrySize is an entry of a dict or set, amortised over the hash
	// table's growth.
	DictEntrySize = 114
)

// ElemSize is the slot of one element of a list, tuple or set.
const ElemSize = SlotSize

// ValueSize returns what v takes when a new copy of it is stored in a
// container, beyond its slot: the bytes of a string, the array of a tuple
// (and its elements' own sizes), a boxed float or a wide int. Reference
// values (lists, dicts, sets, instances) are shared, not copied: they take
// nothing more, and whoever made them charged them. It counts what the
// engine's walk counts, so that a grant and the measurement that replaces
// it agree.
func ValueSize(v starlark.Value) int64 { return valueSize(v, 0) }

// maxSizeDepth bounds how deep ValueSize descends into nested tuples
// (a tuple chain built in a loop can be a million deep); deeper ones
// count their header and slots only.
const maxSizeDepth = 64

func valueSize(v starlark.Value, depth int) int64 {
	switch v := v.(type) {
	case starlark.String:
		return int64(len(v)) + StringHeaderSize
	case starlark.Bytes:
		return int64(len(v)) + StringHeaderSize
	case starlark.Float:
		return FloatSize
	case starlark.Int:
		return IntSize(v)
	case starlark.Tuple:
		n := TupleHeaderSize + int64(len(v))*SlotSize
		if depth < maxSizeDepth {
			for _, e := range v {
				n += valueSize(e, depth+1)
			}
		}
		return n
	}
	return 0
}

// IntSize is the memory of an int beyond its slot.
func IntSize(v starlark.Int) int64 {
	if x, ok := v.Int64(); ok {
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			return 0
		}
		return WideIntSize
	}
	// Past int64 only: BigInt copies the number.
	return WideIntSize + int64(max(len(v.BigInt().Bits())-1, 0))*8
}

// Charger grants many small sizes in batches: grants are cheap, but
// not free.
type Charger struct {
	Th   *starlark.Thread
	owed int64 // not yet granted
}

// chargeBatch is how many bytes a charger owes before it asks the budget.
const chargeBatch = 32 << 10

func (c *Charger) Add(n int64) error {
	if c.owed += n; c.owed > chargeBatch {
		return c.Flush()
	}
	return nil
}

// Flush grants what is owed.
func (c *Charger) Flush() error {
	n := c.owed
	c.owed = 0
	if n > 0 {
		return Alloc(c.Th, n)
	}
	return nil
}

// Entry charges a new entry of a dict or set holding key and value (value
// is nil for a set).
func (c *Charger) Entry(key, value starlark.Value) error {
	n := DictEntrySize + ValueSize(key)
	if value != nil {
		n += ValueSize(value)
	}
	return c.Add(n)
}

// gather is a slice of values a builtin builds, charged to the budget as
// it grows: each backing array it makes (the old ones are garbage only
// once copied, and the budget keeps a builtin's grants until it returns)
// and each element's own size (ValueSize). It doubles, so that all its
// arrays together are at most twice the last.
type gather struct {
	Charger
	Vals []starlark.Value
}

// NewGather returns a gather ready for n values (0 if unknown), their
// slots granted.
func NewGather(th *starlark.Thread, n int) (*gather, error) {
	g := &gather{Charger: Charger{Th: th}}
	if n > 0 {
		if err := Alloc(th, int64(n)*SlotSize); err != nil {
			return nil, err
		}
		g.Vals = make([]starlark.Value, 0, n)
	}
	return g, nil
}

// Add appends v.
func (g *gather) Add(v starlark.Value) error {
	if len(g.Vals) == cap(g.Vals) {
		n := max(2*cap(g.Vals), 64)
		g.owed += int64(n) * SlotSize
		if err := g.Flush(); err != nil {
			return err
		}
		vals := make([]starlark.Value, len(g.Vals), n)
		copy(vals, g.Vals)
		g.Vals = vals
	}
	if err := g.Charger.Add(ValueSize(v)); err != nil {
		return err
	}
	g.Vals = append(g.Vals, v)
	return nil
}

// Done grants what is still owed and returns the values.
func (g *gather) Done() ([]starlark.Value, error) {
	if err := g.Flush(); err != nil {
		return nil, err
	}
	return g.Vals, nil
}

// isMemoryError reports whether err is a MemoryError, which builtins that
// turn their helpers' errors into TypeErrors must pass on as it is.
func isMemoryError(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Type == pyexc.MemoryError.Name()
}

// splitPartSize is what splitting a string costs per part before the
// list is made, beyond what stringList charges: the []string grown by
// append, all of whose arrays together are about five times the last.
const splitPartSize = 5 * 16

// chargeSplit grants, before a split runs, the parts it will make of s:
// sep "" splits at whitespace, "\n" at line breaks (splitlines), any
// other at sep; maxsplit < 0 is no limit. Counting is a pass over s, cheap
// beside the split.
func chargeSplit(th *starlark.Thread, s, sep string, maxsplit int) error {
	var n int
	switch sep {
	case "":
		in := false
		for _, r := range s {
			if sp := IsPySpace(r); !sp && !in {
				n++
			} else if sp {
				in = false
				continue
			}
			in = true
		}
	case "\n":
		n = 1
		for _, r := range s {
			if IsLineBreak(r) {
				n++
			}
		}
	default:
		n = strings.Count(s, sep) + 1
	}
	if maxsplit >= 0 {
		n = min(n, maxsplit+1)
	}
	return Alloc(th, int64(n)*splitPartSize)
}
