package core

import (
	"strings"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// PyCompare is x op y for op one of <, <=, >, >= as CPython evaluates
// it. Tuples and lists are compared item by item here rather than by
// go.starlark.net, so that a bool item compares as the int it is and an
// error names the items' types, as CPython's does ("'<' not supported
// between instances of 'NoneType' and 'int'"), not the sequences'.
func PyCompare(op syntax.Token, x, y starlark.Value) (bool, error) {
	return PyCompareOn(nil, op, x, y)
}

// PyCompareOn is PyCompare made on behalf of th, which may be nil: a
// comparison of sequences fails with th's Interrupt once its execution is
// stopped.
func PyCompareOn(th *starlark.Thread, op syntax.Token, x, y starlark.Value) (bool, error) {
	x, y = baseOperands(x, y)
	xs, xok := x.(starlark.Indexable)
	ys, yok := y.(starlark.Indexable)
	if xok && yok && sameSeqKind(x, y) {
		n, m := xs.Len(), ys.Len()
		for i := 0; i < n && i < m; i++ {
			if i%CheckEvery == CheckEvery-1 {
				if err := Interrupted(th); err != nil {
					return false, err
				}
			}
			a, b := xs.Index(i), ys.Index(i)
			// Ints and strs, the common items of sorted tuples, are
			// ordered at once (Identical of two ints allocates).
			switch a := a.(type) {
			case starlark.Int:
				if b, ok := b.(starlark.Int); ok {
					if c, _ := a.Cmp(b, 1); c != 0 {
						return ThreeWay(op, c), nil
					}
					continue
				}
			case starlark.String:
				if b, ok := b.(starlark.String); ok {
					if c := strings.Compare(string(a), string(b)); c != 0 {
						return ThreeWay(op, c), nil
					}
					continue
				}
			}
			if Identical(a, b) {
				continue
			}
			eq, err := EqualOn(th, a, b)
			if err != nil {
				return false, err
			}
			if !eq {
				return PyCompareOn(th, op, a, b)
			}
		}
		return ThreeWay(op, n-m), nil
	}
	if isNaN(x) || isNaN(y) {
		// go.starlark.net orders NaN above every number; in Python every
		// ordered comparison with it is false.
		return false, nil
	}
	if op == syntax.LT {
		return LessOn(th, x, y)
	}
	x, y = Unbool(x, y)
	xb, xok := x.(starlark.Bool)
	yb, yok := y.(starlark.Bool)
	if xok && yok {
		return ThreeWay(op, int(BoolInt(xb).Sub(BoolInt(yb)).Sign())), nil
	}
	r, err := starlark.CompareOn(th, op, x, y)
	if err != nil {
		return false, orderError(err, op, x, y)
	}
	return r, nil
}

// orderError is the error of x op y for an error of go.starlark.net's
// Compare: an exception of user code, a comparison too deep or a
// cancelled execution as it is, and otherwise CPython's TypeError for
// values it does not order.
func orderError(err error, op syntax.Token, x, y starlark.Value) error {
	if _, isErr := err.(*Error); isErr {
		return err
	}
	if msg := err.Error(); strings.HasPrefix(msg, "Starlark computation cancelled") || strings.Contains(msg, "maximum recursion depth") {
		return err
	}
	return Errorf(pyexc.TypeError, "'%s' not supported between instances of '%s' and '%s'", op, TypeName(x), TypeName(y))
}

// PyLess is x < y (see pyCompare).
func PyLess(x, y starlark.Value) (bool, error) { return PyCompare(syntax.LT, x, y) }

// PyLessOn is x < y made on behalf of th (see PyCompareOn).
func PyLessOn(th *starlark.Thread, x, y starlark.Value) (bool, error) {
	return PyCompareOn(th, syntax.LT, x, y)
}

func ThreeWay(op syntax.Token, c int) bool {
	switch op {
	case syntax.LT:
		return c < 0
	case syntax.LE:
		return c <= 0
	case syntax.GT:
		return c > 0
	case syntax.GE:
		return c >= 0
	case syntax.EQL:
		return c == 0
	}
	return c != 0
}

// sameSeqKind reports two tuples or two lists.
func sameSeqKind(x, y starlark.Value) bool {
	switch x.(type) {
	case starlark.Tuple:
		_, ok := y.(starlark.Tuple)
		return ok
	case *starlark.List:
		_, ok := y.(*starlark.List)
		return ok
	}
	return false
}

// containers is x == y for the pairs of values of different types
// that CPython compares by content, where go.starlark.net finds values of
// different types unequal: a dict against a dict of a collections type
// (Counter(a=1) == {'a': 1}), and a keys or items view against a set, a
// frozenset or another such view (d.keys() == {'a'}). ok is false for
// other pairs, which the caller compares as before.
func (e *pyEq) containers(x, y starlark.Value, depth int) (eq, ok bool, err error) {
	if v, isView := x.(*dictView); isView {
		return viewEqual(v, y)
	}
	if v, isView := y.(*dictView); isView {
		return viewEqual(v, x)
	}
	if x.Type() == y.Type() {
		return false, false, nil // CompareSameType's
	}
	a, aok := asDictLike(x)
	b, bok := asDictLike(y)
	if !aok || !bok {
		return false, false, nil
	}
	if a.Len() != b.Len() {
		return false, true, nil
	}
	// Looked up in a plain dict, whose Get has no side effect (a
	// defaultdict's would insert, a Counter's answer 0).
	lookup, ok := y.(*starlark.Dict)
	items := a.Items()
	if !ok {
		if lookup, ok = x.(*starlark.Dict); ok {
			items = b.Items()
		} else {
			lookup = starlark.NewDict(b.Len())
			for _, kv := range b.Items() {
				if err := lookup.SetKey(kv[0], kv[1]); err != nil {
					return false, true, err
				}
			}
		}
	}
	for _, kv := range items {
		w, found, err := lookup.Get(kv[0])
		if err != nil || !found {
			return false, true, err
		}
		if err := e.tick(); err != nil {
			return false, true, err
		}
		if eq, err := e.equal(kv[1], w, depth+1); err != nil || !eq {
			return false, true, err
		}
	}
	return true, true, nil
}

// dictLike is a dict or a value of a subclass of dict implemented in Go
// (Counter, defaultdict, OrderedDict).
type dictLike interface {
	Items() []starlark.Tuple
	Len() int
}

func asDictLike(v starlark.Value) (dictLike, bool) {
	if d, ok := v.(*starlark.Dict); ok {
		return d, true
	}
	d, ok := v.(dictLike)
	if !ok {
		return nil, false
	}
	t, ok := TypeOf(v).(*Type)
	return d, ok && t.IsSubclassOf(TypeDict)
}

// viewEqual is v == other for a dict view v and a value of another type:
// keys and items views equal the sets of their elements, values views
// only themselves.
func viewEqual(v *dictView, other starlark.Value) (eq, ok bool, err error) {
	if v.kind == "values" {
		return false, false, nil
	}
	var b *starlark.Set
	switch w := other.(type) {
	case *dictView:
		if w.kind == "values" {
			return false, true, nil
		}
		if w.kind == v.kind {
			return false, false, nil // CompareSameType's
		}
		if b, err = newSet(nil, w); err != nil {
			return false, true, err
		}
	default:
		var isSet bool
		if b, isSet = AsSet(other); !isSet {
			return false, false, nil
		}
	}
	if v.Len() != b.Len() {
		return false, true, nil
	}
	a, err := newSet(nil, v)
	if err != nil {
		return false, true, err
	}
	eq, err = starlark.Equal(a, b)
	return eq, true, err
}
