package starlarkexec

import (
	"math"
	"reflect"
	"unsafe"

	"github.com/star-agent/star-agent/builtins/lib/collections"
	"github.com/star-agent/star-agent/vm/starlark"
)

// A fingerprint of the values a step may change in place: what the state
// held before the step, identity by identity, so that a change that keeps
// every length (xs[0] = 1, d['a'][0] = 2, o.x = 2) shows when the step is
// about to run again elsewhere (see rerun.go). It walks what the globals
// reach, as the memory walk does, up to maxFingerprint values: past that
// the state is too large to tell, and the step does not run again.

// maxFingerprint bounds the values a fingerprint visits.
const maxFingerprint = 200_000

type fingerprinter struct {
	seen  map[uintptr]bool
	n     int
	depth int
	over  bool
}

// fingerprint returns the fingerprint of the values of globals named in
// names, and false when the state is too large to tell.
func fingerprint(globals starlark.StringDict, names []string) (uint64, bool) {
	f := &fingerprinter{seen: map[uintptr]bool{}}
	var h uint64 = 14695981039346656037
	for _, name := range names {
		h = mix(h, f.value(globals[name]))
	}
	return h, !f.over
}

func mix(h, x uint64) uint64 { return (h ^ x) * 1099511628211 }

// ref reports whether a reference value is met for the first time, and
// its identity.
func (f *fingerprinter) ref(v any) (uint64, bool) {
	p := reflect.ValueOf(v).Pointer()
	if f.seen[p] {
		return uint64(p), false
	}
	f.seen[p] = true
	return uint64(p), true
}

func (f *fingerprinter) value(v starlark.Value) uint64 {
	if f.over {
		return 0
	}
	if f.n++; f.n > maxFingerprint || f.depth > maxWalkDepth {
		f.over = true
		return 0
	}
	f.depth++
	defer func() { f.depth-- }()
	switch v := v.(type) {
	case nil:
		return 1
	case starlark.NoneType:
		return 2
	case starlark.Bool:
		if v {
			return 3
		}
		return 4
	case starlark.String:
		return mix(uint64(uintptr(unsafe.Pointer(unsafe.StringData(string(v))))), uint64(len(v)))
	case starlark.Bytes:
		return mix(uint64(uintptr(unsafe.Pointer(unsafe.StringData(string(v))))), uint64(len(v))) + 5
	case starlark.Int:
		if x, ok := v.Int64(); ok {
			return mix(6, uint64(x))
		}
		h, _ := v.Hash() // ints are immutable: the value is their identity
		return mix(7, uint64(h))
	case starlark.Float:
		return mix(8, math.Float64bits(float64(v)))
	case starlark.Tuple:
		h := mix(9, uint64(len(v)))
		for _, e := range v {
			h = mix(h, f.value(e))
		}
		return h
	case *starlark.List, *collections.Deque:
		seq := v.(starlark.Indexable)
		h, first := f.ref(v)
		h = mix(h, uint64(seq.Len()))
		if first {
			for i := 0; i < seq.Len(); i++ {
				h = mix(h, f.value(seq.Index(i)))
			}
		}
		return h
	case *starlark.Dict:
		h, first := f.ref(v)
		h = mix(h, uint64(v.Len()))
		if first {
			for k, x := range v.Entries() {
				h = mix(mix(h, f.value(k)), f.value(x))
			}
		}
		return h
	case *starlark.Set:
		h, first := f.ref(v)
		h = mix(h, uint64(v.Len()))
		if first {
			iter := v.Iterate()
			var x starlark.Value
			for iter.Next(&x) {
				h = mix(h, f.value(x))
			}
			iter.Done()
		}
		return h
	case *starlark.Function:
		h, first := f.ref(v)
		if first {
			for i := 0; i < v.NumFreeVars(); i++ {
				_, fv := v.FreeVar(i)
				h = mix(h, f.value(fv))
			}
			for i := 0; i < v.NumParams(); i++ {
				if d := v.ParamDefault(i); d != nil {
					h = mix(h, f.value(d))
				}
			}
		}
		return h
	case Sizer:
		// Instances, classes, cells: their parts come in map order, so
		// they are summed, not mixed in order.
		h, first := f.ref(v)
		if first {
			var sum uint64
			v.SizeOf(func(x starlark.Value) { sum += f.value(x) })
			h = mix(h, sum)
		}
		return h
	}
	if k := reflect.ValueOf(v).Kind(); k == reflect.Pointer || k == reflect.Map || k == reflect.Slice || k == reflect.Func {
		h, _ := f.ref(v)
		return h
	}
	return 10
}
