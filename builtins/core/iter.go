package core

import (
	"fmt"
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// CheckEvery is how many iterations a builtin runs between checks of the
// deadline and the memory budget.
const CheckEvery = 4096

// ForEach calls f for each element of the Python iterable v (strings yield
// their characters), honouring the deadline.
func ForEach(th *starlark.Thread, v starlark.Value, f func(starlark.Value) error) error {
	if s, ok := v.(starlark.String); ok {
		n := 0
		for _, r := range string(s) {
			if n++; n%CheckEvery == 0 {
				if err := Interrupted(th); err != nil {
					return err
				}
			}
			if err := f(starlark.String(string(r))); err != nil {
				return err
			}
		}
		return nil
	}
	if b, ok := v.(starlark.Bytes); ok {
		// Bytes iterate as their byte values, ints in range(256).
		for i := 0; i < len(b); i++ {
			if i%CheckEvery == CheckEvery-1 {
				if err := Interrupted(th); err != nil {
					return err
				}
			}
			if err := f(starlark.MakeInt(int(b[i]))); err != nil {
				return err
			}
		}
		return nil
	}
	if p, ok := v.(*Iterator); ok {
		// Driven on the caller's thread, so that a generator's body runs
		// for this consumer and its exception reaches it.
		for n := 1; ; n++ {
			if n%CheckEvery == 0 {
				if err := Interrupted(th); err != nil {
					return err
				}
			}
			x, ok, err := p.NextOn(th)
			if err != nil || !ok {
				return err
			}
			if err := f(x); err != nil {
				return err
			}
		}
	}
	switch seq := v.(type) {
	case *starlark.List, starlark.Tuple:
		// Indexed directly; a list that f shrinks ends the loop early,
		// one that f grows is walked to its new end, as in Python.
		s := seq.(starlark.Indexable)
		for i := 0; i < s.Len(); i++ {
			if i%CheckEvery == CheckEvery-1 {
				if err := Interrupted(th); err != nil {
					return err
				}
			}
			if err := f(s.Index(i)); err != nil {
				return err
			}
		}
		return nil
	}
	if set, ok := v.(*starlark.Set); ok {
		// In CPython's order (see setOrder).
		for i, x := range setElements(set) {
			if i%CheckEvery == CheckEvery-1 {
				if err := Interrupted(th); err != nil {
					return err
				}
			}
			if err := f(x); err != nil {
				return err
			}
		}
		return nil
	}
	it, ok := v.(starlark.Iterable)
	if !ok {
		return Errorf(pyexc.TypeError, "'%s' object is not iterable", TypeName(v))
	}
	iter := it.Iterate()
	defer iter.Done()
	var x starlark.Value
	for n := 1; iter.Next(&x); n++ {
		if n%CheckEvery == 0 {
			if err := Interrupted(th); err != nil {
				return err
			}
		}
		if err := f(x); err != nil {
			return err
		}
	}
	// Iterators over user code (an instance's __iter__ and __next__)
	// end early when it raises; go.starlark.net cannot report that, so
	// they keep the error for the caller.
	if e, ok := iter.(interface{ Err() error }); ok {
		return e.Err()
	}
	return nil
}

// Collect gathers the elements of v into a slice charged to the budget.
// The elements of a container exist already: only their slots are new.
// Those an iterator yields may be new (itertools' tuples, zip's, the
// characters of a string): each is charged its own size too (ValueSize),
// as the engine's walk will count it.
func Collect(th *starlark.Thread, v starlark.Value) ([]starlark.Value, error) {
	switch s := v.(type) {
	case starlark.String:
		n := utf8.RuneCountInString(string(s))
		if err := Alloc(th, int64(n)*(SlotSize+StringHeaderSize+utf8.UTFMax)); err != nil {
			return nil, err
		}
		out := make([]starlark.Value, 0, n)
		for _, r := range string(s) {
			out = append(out, starlark.String(string(r)))
		}
		return out, nil
	case starlark.Bytes:
		if err := Alloc(th, int64(len(s))*SlotSize); err != nil {
			return nil, err
		}
		out := make([]starlark.Value, len(s))
		for i := 0; i < len(s); i++ {
			out[i] = starlark.MakeInt(int(s[i]))
		}
		return out, nil
	case starlark.Sequence:
		n := s.Len()
		if v, ok := s.(*dictView); s.Type() == "range" || ok && v.kind == "items" {
			// A range makes its elements (ints past int32 take memory),
			// items() its pairs.
			break
		}
		if err := Alloc(th, int64(n)*SlotSize); err != nil {
			return nil, err
		}
		out := make([]starlark.Value, 0, n)
		err := ForEach(th, v, func(x starlark.Value) error {
			out = append(out, x)
			return nil
		})
		return out, err
	}
	n := 0
	if s, ok := v.(starlark.Sequence); ok {
		n = s.Len()
	}
	g, err := NewGather(th, n)
	if err != nil {
		return nil, err
	}
	if err := ForEach(th, v, g.Add); err != nil {
		return nil, err
	}
	return g.Done()
}

// Iterator is a Python iterator (what iter(), map(), zip(), enumerate()
// and reversed() return, and generators): it is consumed as it is
// iterated and next() advances it. Iterating it in a for loop continues
// where next() stopped.
type Iterator struct {
	name string // Python type name: "list_iterator", "map", "zip", ...
	next func() (starlark.Value, bool, error)
	// step, when set instead of next, produces values by running user
	// code (a generator's body, a generator expression's clauses) on the
	// consumer's thread, under the limits of the execution consuming it.
	step func(th *starlark.Thread) (starlark.Value, bool, error)
	// group is the execution that created a step iterator: Next runs
	// step on the thread it is running.
	group *Generators
	done  bool

	gen   *genCore // a generator function's body, for send, throw and close
	label string   // generators: the function's name, for repr

	// Iterators that run no user code but can be long or endless (count,
	// cycle, repeat, iter() of a sequence) are consumed by loops that have
	// no thread of their own to be cancelled (x in it, islice skipping,
	// chain skipping empty parts). Every 1024 items such an iterator looks
	// at the execution that made it (see paced), so that those loops stop
	// at its deadline instead of spinning on after it was abandoned.
	paceTh *starlark.Thread
	paceG  *Generators
	paceN  uint32
}

// Paced makes it stop with an Interrupt once the execution running th is
// stopped (deadline, cancellation), checked every 1024 items. An iterator
// kept into a later execution is checked again once a builtin of that
// execution takes it (pyIter); until then (x in it) its maker's execution
// has ended and it knows no thread of the new one.
func (it *Iterator) Paced(th *starlark.Thread) *Iterator {
	if th != nil && BudgetOf(th) != nil {
		it.paceTh, it.paceG = th, GeneratorsOf(th)
	}
	return it
}

// pace is paced's check, made before each item.
func (it *Iterator) pace() error {
	if it.paceN++; it.paceN&1023 != 0 {
		return nil
	}
	if it.paceG.closed.Load() {
		return nil // see paced; pyIter paces it again for its consumer
	}
	return Interrupted(it.paceTh)
}

var (
	_ starlark.Iterable  = (*Iterator)(nil)
	_ starlark.Container = (*Iterator)(nil)
	_ Typed              = (*Iterator)(nil)
)

// NewIterator returns an iterator named name (its Python type) that
// produces values by calling next until it reports false.
func NewIterator(name string, next func() (starlark.Value, bool, error)) *Iterator {
	return &Iterator{name: name, next: next}
}

// NewStepIterator returns an iterator named name whose values are made by
// user code: step runs on the consumer's thread, under the limits of the
// execution consuming it, as map's and filter's do (PyMap). th is the
// thread of the execution that makes it.
func NewStepIterator(th *starlark.Thread, name string, step func(th *starlark.Thread) (starlark.Value, bool, error)) *Iterator {
	return &Iterator{name: name, step: step, group: GeneratorsOf(th)}
}

func (it *Iterator) String() string {
	if it.label != "" {
		return fmt.Sprintf("<%s object %s at %#x>", it.name, it.label, UintptrOf(it))
	}
	return "<" + it.name + " object>"
}
func (it *Iterator) Type() string          { return it.name }
func (it *Iterator) Freeze()               {}
func (it *Iterator) Truth() starlark.Bool  { return true }
func (it *Iterator) Hash() (uint32, error) { return uint32(len(it.name)) * 2654435761, nil }

// PyType returns the iterator's type object.
func (it *Iterator) PyType() starlark.Value { return IterType(it.name) }

// HasOn is x in it for the interpreter's thread th
// (starlark.ContainerOn): an iterator kept from an earlier step is paced
// again for th, as PyIter does for a builtin, so that an endless one
// stops at th's deadline; its items are compared on th.
func (it *Iterator) HasOn(th *starlark.Thread, x starlark.Value) (bool, error) {
	it, err := PyIter(th, it)
	if err != nil {
		return false, err
	}
	for {
		v, ok, err := it.NextOn(th)
		if err != nil || !ok {
			return false, err
		}
		if eq, err := starlark.EqualOn(th, v, x); err != nil || eq {
			return eq, err
		}
	}
}

// Has is Python's x in it: it consumes the iterator up to the first item
// equal to x.
func (it *Iterator) Has(x starlark.Value) (bool, error) {
	for {
		v, ok, err := it.Next()
		if err != nil || !ok {
			return false, err
		}
		if eq, err := starlark.Equal(v, x); err != nil || eq {
			return eq, err
		}
	}
}

// Next produces the next value; ok is false when the iterator is
// exhausted. An iterator that runs user code runs it on the thread its
// execution is running; callers that have a thread use NextOn.
func (it *Iterator) Next() (v starlark.Value, ok bool, err error) {
	var th *starlark.Thread
	if it.step != nil && !it.done {
		if th = it.group.running(); th == nil {
			it.done = true
			return nil, false, errEndedStep(it.name)
		}
	}
	return it.NextOn(th)
}

// NextOn is Next for a consumer running on th. An error ends the
// iterator: later calls report exhaustion, as a Python generator does
// after raising.
func (it *Iterator) NextOn(th *starlark.Thread) (v starlark.Value, ok bool, err error) {
	if it.done {
		return nil, false, nil
	}
	if it.step != nil {
		if it.group.closed.Load() {
			// Made by an earlier execution: its consumer's now.
			it.group = GeneratorsOf(th)
		}
		v, ok, err = it.step(th)
	} else if it.paceTh != nil {
		if err = it.pace(); err == nil {
			v, ok, err = it.next()
		}
	} else {
		v, ok, err = it.next()
	}
	if err != nil || !ok {
		it.done = true
	}
	return v, ok, err
}

// Iterate implements starlark.Iterable. go.starlark.net's loops cannot
// receive an error from an iterator: the lowered for loops and
// comprehensions iterate through __sa_iter instead (loopIter), and
// builtins use forEach, which reports it.
func (it *Iterator) Iterate() starlark.Iterator { return &iterAdapter{it: it} }

type iterAdapter struct {
	it  *Iterator
	err error
}

func (a *iterAdapter) Next(p *starlark.Value) bool {
	v, ok, err := a.it.Next()
	if err != nil {
		a.err = err
	}
	if ok {
		*p = v
	}
	return ok
}

func (a *iterAdapter) Done() {}

// Err is the error that ended the iteration, for the builtins that
// iterate with Iterate and check it (see forEach).
func (a *iterAdapter) Err() error { return a.err }

// IterType returns the cached type object of an iterator kind.
func IterType(name string) *Type {
	if v, ok := otherTypes.Load("iter:" + name); ok {
		return v.(*Type)
	}
	v, _ := otherTypes.LoadOrStore("iter:"+name, &Type{PyName: name, Base: TypeObject})
	return v.(*Type)
}

// SliceIterator iterates over a fixed slice.
func SliceIterator(name string, vals []starlark.Value) *Iterator {
	i := 0
	return NewIterator(name, func() (starlark.Value, bool, error) {
		if i >= len(vals) {
			return nil, false, nil
		}
		i++
		return vals[i-1], true, nil
	})
}

// PyIter is iter(v): an Iterator over v that does not hold go.starlark.net's
// iteration lock on lists and dicts between calls to next().
func PyIter(th *starlark.Thread, v starlark.Value) (*Iterator, error) {
	switch x := v.(type) {
	case *Iterator:
		if x.step != nil && x.group.closed.Load() {
			x.group = GeneratorsOf(th)
		}
		if x.paceG != nil && x.paceG.closed.Load() {
			x.Paced(th)
		}
		return x, nil
	case starlark.String:
		s := string(x)
		return NewIterator("str_ascii_iterator", func() (starlark.Value, bool, error) {
			if s == "" {
				return nil, false, nil
			}
			r, size := utf8.DecodeRuneInString(s)
			s = s[size:]
			return starlark.String(string(r)), true, nil
		}).Paced(th), nil
	case starlark.Bytes:
		i := 0
		return NewIterator("bytes_iterator", func() (starlark.Value, bool, error) {
			if i >= len(x) {
				return nil, false, nil
			}
			i++
			return starlark.MakeInt(int(x[i-1])), true, nil
		}).Paced(th), nil
	case starlark.Indexable:
		i := 0
		name := TypeName(v) + "_iterator"
		return NewIterator(name, func() (starlark.Value, bool, error) {
			if i >= x.Len() {
				return nil, false, nil
			}
			i++
			return x.Index(i - 1), true, nil
		}).Paced(th), nil
	case *dictView:
		// The keys as for a dict; values are read as the iteration
		// reaches them, so that assigning to a key while iterating
		// items() works and is seen, as in CPython.
		keys, err := Collect(th, x.d)
		if err != nil {
			return nil, err
		}
		n := x.d.Len()
		i := 0
		kind := map[string]string{"keys": "key", "values": "value", "items": "item"}[x.kind]
		return NewIterator("dict_"+kind+"iterator", func() (starlark.Value, bool, error) {
			if x.d.Len() != n {
				return nil, false, Errorf(pyexc.RuntimeError, "dictionary changed size during iteration")
			}
			if i >= len(keys) {
				return nil, false, nil
			}
			k := keys[i]
			i++
			v, found, err := x.d.Get(k)
			if err != nil {
				return nil, false, err
			}
			if !found {
				// Deleted and replaced by another key: the size is the same.
				return nil, false, Errorf(pyexc.RuntimeError, "dictionary keys changed during iteration")
			}
			switch x.kind {
			case "keys":
				return k, true, nil
			case "values":
				return v, true, nil
			}
			return starlark.Tuple{k, v}, true, nil
		}).Paced(th), nil
	case *starlark.Dict, *starlark.Set:
		// A snapshot of the keys, which must not outlive a change of
		// size: CPython's iterators raise then.
		vals, err := Collect(th, v)
		if err != nil {
			return nil, err
		}
		coll := x.(starlark.Sequence)
		n := coll.Len()
		i := 0
		return NewIterator(TypeName(v)+"_keyiterator", func() (starlark.Value, bool, error) {
			if coll.Len() != n {
				what := "dictionary"
				if _, ok := coll.(*starlark.Set); ok {
					what = "Set"
				}
				return nil, false, Errorf(pyexc.RuntimeError, "%s changed size during iteration", what)
			}
			if i >= len(vals) {
				return nil, false, nil
			}
			i++
			return vals[i-1], true, nil
		}).Paced(th), nil
	case starlark.Iterable:
		// Other iterables (instances with __iter__, views) are iterated
		// lazily; the iteration is released when exhausted.
		iter := x.Iterate()
		if e, ok := iter.(*errIterator); ok {
			return nil, e.err // __iter__ failed: iter() raises at once, as in Python
		}
		return NewIterator(TypeName(v)+"_iterator", func() (starlark.Value, bool, error) {
			var e starlark.Value
			if iter != nil && iter.Next(&e) {
				return e, true, nil
			}
			if iter != nil {
				// An iterator over user code keeps the exception that
				// ended it (see forEach).
				var err error
				if e, ok := iter.(interface{ Err() error }); ok {
					err = e.Err()
				}
				iter.Done()
				iter = nil
				if err != nil {
					return nil, false, err
				}
			}
			return nil, false, nil
		}).Paced(th), nil
	}
	return nil, Errorf(pyexc.TypeError, "'%s' object is not iterable", TypeName(v))
}
