package starlarkexec

import (
	"reflect"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/lib/collections"
	"github.com/star-agent/star-agent/vm/starlark"
)

// sizer estimates the memory held by the values an execution can reach:
// its globals and the locals of every frame on its stack. go.starlark.net
// has no allocator hook, so this walk is how the engine learns the live size
// of an execution without counting other goroutines' allocations or
// garbage. Estimates follow the Go representation, with the sizes measured
// in builtins/sizes.go (the budget's grants use the same, so that a grant
// and the measurement that replaces it agree).
type sizer struct {
	seen  map[uintptr]bool
	count int // values visited, to pace the next walk
	limit int64
	total int64
	depth int              // nesting of the value being visited
	later []starlark.Value // values met deeper than maxWalkDepth, visited after
}

// maxWalkDepth bounds the walk's recursion: values nested deeper (a tuple
// chain built in a loop, t = (t,), can be millions deep) are set aside
// and visited from the top, so that the walk's own stack stays small. A
// three-million-deep chain grew the walk's goroutine stack by hundreds of
// megabytes, which no budget counted.
const maxWalkDepth = 1000

const (
	ifaceSize  = core.SlotSize
	dictEntry  = core.DictEntrySize
	objectSize = core.ListSize // header of a list, dict, set, function
)

// add counts v and what it holds.
func (s *sizer) add(v starlark.Value) {
	if s.total > s.limit { // over budget already: stop early, the answer is known
		return
	}
	if s.depth >= maxWalkDepth {
		s.later = append(s.later, v)
		return
	}
	s.depth++
	s.visitValue(v)
	s.depth--
	if s.depth == 0 {
		for len(s.later) > 0 && s.total <= s.limit {
			v := s.later[len(s.later)-1]
			s.later = s.later[:len(s.later)-1]
			s.depth++
			s.visitValue(v)
			s.depth--
		}
		s.later = s.later[:0]
	}
}

func (s *sizer) visitValue(v starlark.Value) {
	s.count++
	switch v := v.(type) {
	case nil, starlark.NoneType, starlark.Bool:
		return
	case starlark.Float:
		s.total += core.FloatSize
	case starlark.String:
		s.total += int64(len(v)) + core.StringHeaderSize
	case starlark.Bytes:
		s.total += int64(len(v)) + core.StringHeaderSize
	case starlark.Int:
		s.total += core.IntSize(v)
	case *starlark.List:
		if s.visit(v) {
			s.total += objectSize + int64(v.Len())*ifaceSize
			for i := 0; i < v.Len(); i++ {
				s.add(v.Index(i))
			}
		}
	case starlark.Tuple:
		s.total += core.TupleHeaderSize + int64(len(v))*ifaceSize
		for _, e := range v {
			s.add(e)
		}
	case *starlark.Dict:
		if s.visit(v) {
			s.total += objectSize + int64(v.Len())*dictEntry
			for k, x := range v.Entries() {
				s.add(k)
				s.add(x)
			}
		}
	case *starlark.Set:
		if s.visit(v) {
			s.total += objectSize + int64(v.Len())*dictEntry
			iter := v.Iterate()
			var x starlark.Value
			for iter.Next(&x) {
				s.add(x)
			}
			iter.Done()
		}
	case *starlark.Function:
		if s.visit(v) {
			s.total += objectSize
			for i := 0; i < v.NumFreeVars(); i++ {
				_, fv := v.FreeVar(i)
				s.add(fv)
			}
			// Default values live as long as the function: def f(a=[...]).
			for i := 0; i < v.NumParams(); i++ {
				if d := v.ParamDefault(i); d != nil {
					s.add(d)
				}
			}
		}
	case *collections.Deque:
		if s.visit(v) {
			s.total += objectSize + int64(v.Len())*ifaceSize
			for i := 0; i < v.Len(); i++ {
				s.add(v.Index(i))
			}
		}
	case Sizer:
		if s.visit(v) {
			s.total += v.SizeOf(s.add)
		}
	default:
		// Builtins, modules and other host values are shared, not owned by
		// the execution: count a header only.
		s.total += ifaceSize
	}
}

// visit reports whether a reference value is seen for the first time.
func (s *sizer) visit(v any) bool {
	p := reflect.ValueOf(v).Pointer()
	if s.seen[p] {
		return false
	}
	s.seen[p] = true
	return true
}

// Sizer is implemented by values defined outside go.starlark.net (class
// instances, deques, ...) that hold other values: SizeOf returns the bytes
// the value itself holds and passes every value it references to visit.
type Sizer interface {
	starlark.Value
	SizeOf(visit func(starlark.Value)) int64
}

// liveSize measures the values reachable from globals and the threads'
// stacks (the execution's and its generators'): each frame's locals and
// the module globals of each function on the stack (a running chunk's
// globals live in its module, not yet in the executor's dictionary).
func liveSize(threads []*starlark.Thread, globals starlark.StringDict, limit int64) (total int64, count int) {
	s := &sizer{seen: make(map[uintptr]bool, 32), limit: limit}
	for _, v := range globals {
		s.add(v)
	}
	modules := map[*starlark.Function]bool{}
	for _, thread := range threads {
		for d := 0; d < thread.CallStackDepth(); d++ {
			fr := thread.DebugFrame(d)
			if fn, ok := fr.Callable().(*starlark.Function); ok && !modules[fn] {
				modules[fn] = true
				for _, v := range fn.Globals() {
					s.add(v)
				}
			}
			for i := 0; i < fr.NumLocals(); i++ {
				_, v := fr.Local(i)
				s.add(v)
			}
		}
	}
	return s.total, s.count
}
