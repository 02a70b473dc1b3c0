package core

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// NamedtupleValue is an instance of a namedtuple type: a tuple whose
// items are also attributes.
type NamedtupleValue struct {
	starlark.Tuple
	typ    *Type
	fields []string
}

// TupleSubclass is implemented by values whose type derives from tuple
// (namedtuples, time.struct_time): == and ordering compare them as the
// plain tuples of their items.
type TupleSubclass interface {
	starlark.Value
	TupleItems() starlark.Tuple
}

// baseOperands gives == and ordering the operands CPython compares for
// values of subclasses of tuple and int: when both are tuples, one of a
// subclass (namedtuple, struct_time), the plain tuples of their items;
// for IntEnum and IntFlag members, their int values; for Fraction and
// Decimal against other numbers, the outcome of the exact comparison.
func baseOperands(x, y starlark.Value) (starlark.Value, starlark.Value) {
	xt, xsub := x.(TupleSubclass)
	yt, ysub := y.(TupleSubclass)
	_, xplain := x.(starlark.Tuple)
	_, yplain := y.(starlark.Tuple)
	if (xsub || xplain) && (ysub || yplain) && (xsub || ysub) {
		if xsub {
			x = xt.TupleItems()
		}
		if ysub {
			y = yt.TupleItems()
		}
		return x, y
	}
	x, y = enumOperand(x), enumOperand(y)
	if nx, ny, ok := numberOperands(x, y); ok {
		return nx, ny
	}
	return x, y
}

func (n *NamedtupleValue) TupleItems() starlark.Tuple { return n.Tuple }

func (n *NamedtupleValue) Type() string { return n.typ.PyName }

func (n *NamedtupleValue) PyType() starlark.Value { return n.typ }

func (n *NamedtupleValue) String() string { return Repr(n) }

func (n *NamedtupleValue) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	return CompareTupleSubclass(n.Tuple, op, y, depth)
}

// CompareTupleSubclass compares the items of a tuple subclass with y,
// which go.starlark.net found to have the same type name.
func CompareTupleSubclass(items starlark.Tuple, op syntax.Token, y starlark.Value, depth int) (bool, error) {
	other, ok := y.(TupleSubclass)
	if !ok {
		switch op {
		case syntax.EQL:
			return false, nil
		case syntax.NEQ:
			return true, nil
		}
		return false, Errorf(pyexc.TypeError, "'%s' not supported between instances of '%s' and '%s'", op, TypeName(items), TypeName(y))
	}
	return items.CompareSameType(op, other.TupleItems(), depth)
}

// TupleBinary is tuple + tuple and tuple * int for a tuple subclass,
// whose results are plain tuples.
func TupleBinary(items starlark.Tuple, op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	switch op {
	case syntax.PLUS:
		var other starlark.Tuple
		switch t := y.(type) {
		case starlark.Tuple:
			other = t
		case TupleSubclass:
			other = t.TupleItems()
		default:
			return nil, nil
		}
		if side == starlark.Left {
			return append(append(starlark.Tuple{}, items...), other...), nil
		}
		return append(append(starlark.Tuple{}, other...), items...), nil
	case syntax.STAR:
		if _, ok := y.(starlark.Int); ok {
			return starlark.Binary(op, items, y)
		}
	}
	return nil, nil
}

func (n *NamedtupleValue) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	return TupleBinary(n.Tuple, op, y, side)
}

func (n *NamedtupleValue) PyRepr(th *starlark.Thread) (string, error) {
	var b strings.Builder
	b.WriteString(n.typ.PyName + "(")
	for i, f := range n.fields {
		if i > 0 {
			b.WriteString(", ")
		}
		s, err := ReprValue(th, n.Tuple[i])
		if err != nil {
			return "", err
		}
		b.WriteString(f + "=" + s)
	}
	b.WriteString(")")
	return b.String(), nil
}

func (n *NamedtupleValue) PyStr(th *starlark.Thread) (string, error) { return n.PyRepr(th) }

func (n *NamedtupleValue) AttrNames() []string {
	return append([]string{"_asdict", "_field_defaults", "_fields", "_make", "_replace", "count", "index"}, n.fields...)
}

func (n *NamedtupleValue) Attr(name string) (starlark.Value, error) {
	for i, f := range n.fields {
		if f == name {
			return n.Tuple[i], nil
		}
	}
	switch name {
	case "_fields", "_field_defaults", "_make", "__match_args__":
		return n.typ.Attrs[name], nil
	case "_asdict":
		return Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
				return nil, err
			}
			d := starlark.NewDict(len(n.fields))
			for i, f := range n.fields {
				d.SetKey(starlark.String(f), n.Tuple[i])
			}
			return d, nil
		}), nil
	case "_replace":
		return Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) > 0 {
				return nil, Errorf(pyexc.TypeError, "%s._replace() takes 1 positional argument but %d were given", n.typ.PyName, len(args)+1)
			}
			vals := append(starlark.Tuple(nil), n.Tuple...)
			var unknown []starlark.Value
			for _, kv := range kwargs {
				k := string(kv[0].(starlark.String))
				found := false
				for i, f := range n.fields {
					if f == k {
						vals[i], found = kv[1], true
					}
				}
				if !found {
					unknown = append(unknown, kv[0])
				}
			}
			if len(unknown) > 0 {
				return nil, Errorf(pyexc.ValueError, "Got unexpected field names: %s", Repr(starlark.NewList(unknown)))
			}
			return &NamedtupleValue{Tuple: vals, typ: n.typ, fields: n.fields}, nil
		}), nil
	case "count", "index":
		return TupleMethods[name].BindReceiver(n.Tuple), nil
	}
	return nil, Errorf(pyexc.AttributeError, "'%s' object has no attribute '%s'", n.typ.PyName, name)
}

func Namedtuple(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var typename, fieldsV starlark.Value
	var defaults, rename, module starlark.Value = starlark.None, starlark.False, starlark.None
	if err := starlark.UnpackArgs("namedtuple", args, kwargs, "typename", &typename, "field_names", &fieldsV, "rename?", &rename, "defaults?", &defaults, "module?", &module); err != nil {
		return nil, err
	}
	name := Str(typename)
	var fields []string
	if s, ok := fieldsV.(starlark.String); ok {
		fields = strings.Fields(strings.ReplaceAll(string(s), ",", " "))
	} else {
		vals, err := Collect(th, fieldsV)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			fields = append(fields, Str(v))
		}
	}
	if rename.Truth() {
		seen := map[string]bool{}
		for i, f := range fields {
			if !isPyIdentifier(f) || pyKeywords[f] || strings.HasPrefix(f, "_") || seen[f] {
				fields[i] = fmt.Sprintf("_%d", i)
			}
			seen[f] = true
		}
	}
	for _, f := range append([]string{name}, fields...) {
		if !isPyIdentifier(f) {
			return nil, Errorf(pyexc.ValueError, "Type names and field names must be valid identifiers: %s", QuoteString(f))
		}
		if pyKeywords[f] {
			return nil, Errorf(pyexc.ValueError, "Type names and field names cannot be a keyword: %s", QuoteString(f))
		}
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if strings.HasPrefix(f, "_") && !bool(rename.Truth()) {
			return nil, Errorf(pyexc.ValueError, "Field names cannot start with an underscore: %s", QuoteString(f))
		}
		if seen[f] {
			return nil, Errorf(pyexc.ValueError, "Encountered duplicate field name: %s", QuoteString(f))
		}
		seen[f] = true
	}
	var dflts []starlark.Value
	if defaults != starlark.None {
		var err error
		if dflts, err = Collect(th, defaults); err != nil {
			return nil, err
		}
		if len(dflts) > len(fields) {
			return nil, Errorf(pyexc.TypeError, "Got more default values than field names")
		}
	}
	fieldTuple := make(starlark.Tuple, len(fields))
	for i, f := range fields {
		fieldTuple[i] = starlark.String(f)
	}
	fieldDefaults := starlark.NewDict(len(dflts))
	for i, d := range dflts {
		fieldDefaults.SetKey(fieldTuple[len(fields)-len(dflts)+i], d)
	}
	t := &Type{PyName: name, Base: TypeTuple, methods: TupleMethods}
	t.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) > len(fields) {
			return nil, Errorf(pyexc.TypeError, "%s.__new__() takes %d positional arguments but %d were given", name, len(fields)+1, len(args)+1)
		}
		vals := make(starlark.Tuple, len(fields))
		copy(vals, args)
		set := make([]bool, len(fields))
		for i := range args {
			set[i] = true
		}
		for _, kv := range kwargs {
			k := string(kv[0].(starlark.String))
			found := false
			for i, f := range fields {
				if f == k {
					if set[i] {
						return nil, Errorf(pyexc.TypeError, "%s.__new__() got multiple values for argument '%s'", name, k)
					}
					vals[i], set[i], found = kv[1], true, true
				}
			}
			if !found {
				return nil, Errorf(pyexc.TypeError, "%s.__new__() got an unexpected keyword argument '%s'", name, k)
			}
		}
		var missing []string
		for i := range fields {
			if !set[i] {
				if j := i - (len(fields) - len(dflts)); j >= 0 {
					vals[i] = dflts[j]
					continue
				}
				missing = append(missing, fields[i])
			}
		}
		if len(missing) > 0 {
			s := "s"
			if len(missing) == 1 {
				s = ""
			}
			return nil, Errorf(pyexc.TypeError, "%s.__new__() missing %d required positional argument%s: %s", name, len(missing), s, argList(missing))
		}
		return &NamedtupleValue{Tuple: vals, typ: t, fields: fields}, nil
	}
	fieldDefaults.Freeze()
	t.Attrs = map[string]starlark.Value{
		"_fields":         fieldTuple,
		"__match_args__":  fieldTuple,
		"_field_defaults": fieldDefaults,
		"_make": Fn("_make", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var it starlark.Value
			if err := starlark.UnpackPositionalArgs("_make", args, kwargs, 1, &it); err != nil {
				return nil, err
			}
			vals, err := Collect(th, it)
			if err != nil {
				return nil, err
			}
			if len(vals) != len(fields) {
				return nil, Errorf(pyexc.TypeError, "Expected %d arguments, got %d", len(fields), len(vals))
			}
			return &NamedtupleValue{Tuple: vals, typ: t, fields: fields}, nil
		}),
	}
	return t, nil
}

// pyKeywords are Python 3.11's keyword.kwlist.
var pyKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}

// isPyIdentifier is str.isidentifier (XID_Start/XID_Continue, approximated
// by letters, digits, marks and connector punctuation outside ASCII).
func isPyIdentifier(s string) bool {
	for i, r := range s {
		switch {
		case r == '_' || r < 0x80 && unicode.IsLetter(r):
		case i > 0 && r < 0x80 && unicode.IsDigit(r):
		case r >= 0x80 && (unicode.IsLetter(r) || unicode.Is(unicode.Nl, r)):
		case r >= 0x80 && i > 0 && (unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc)):
		default:
			return false
		}
	}
	return s != ""
}

// argList is CPython's listing of missing argument names: 'a', 'a' and
// 'b', 'a', 'b', and 'c'.
func argList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	switch len(q) {
	case 1:
		return q[0]
	case 2:
		return q[0] + " and " + q[1]
	}
	return strings.Join(q[:len(q)-1], ", ") + ", and " + q[len(q)-1]
}
