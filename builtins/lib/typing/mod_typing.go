package typing

import (
	"strings"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// typingForm is a typing name (List, Optional[int], ...). Annotations are
// ignored by the front end, but aliases such as Vector = List[float] are
// evaluated, so forms can be subscripted and printed.
type typingForm struct{ name string }

func (f *typingForm) String() string { return "typing." + f.name }

func (f *typingForm) Type() string { return "typing._GenericAlias" }

func (f *typingForm) Freeze() {}

func (f *typingForm) Truth() starlark.Bool { return true }

func (f *typingForm) Hash() (uint32, error) { return starlark.String(f.name).Hash() }

// Get implements subscription: List[int] is typing.List[int].
func (f *typingForm) Get(k starlark.Value) (starlark.Value, bool, error) {
	var parts []string
	name := func(v starlark.Value) string {
		switch x := v.(type) {
		case *core.Type:
			return x.PyName
		case *typingForm:
			return "typing." + x.name
		case starlark.NoneType:
			return "NoneType"
		}
		return core.Repr(v)
	}
	if t, ok := k.(starlark.Tuple); ok {
		for _, e := range t {
			parts = append(parts, name(e))
		}
	} else {
		parts = []string{name(k)}
	}
	return &typingForm{name: f.name + "[" + strings.Join(parts, ", ") + "]"}, true, nil
}

// CallInternal lets NewType-like and cast-like uses of forms pass values
// through unchanged.
func (f *typingForm) CallInternal(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return nil, core.Errorf(pyexc.TypeError, "Type %s cannot be instantiated", f.name)
}

func (f *typingForm) Name() string { return f.name }

// IsInstance makes isinstance(x, typing.Any)-style checks fail loudly as
// in Python rather than silently.
func (f *typingForm) IsInstance(v starlark.Value) bool { return false }

func members() starlark.StringDict {
	m := starlark.StringDict{
		"TYPE_CHECKING": starlark.False,
		"cast": core.Fn("cast", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var t, v starlark.Value
			if err := starlark.UnpackPositionalArgs("cast", args, kwargs, 2, &t, &v); err != nil {
				return nil, err
			}
			return v, nil
		}),
		"TypeVar": core.Fn("TypeVar", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) == 0 {
				return nil, core.Errorf(pyexc.TypeError, "TypeVar() missing required argument 'name'")
			}
			s, _ := args[0].(starlark.String)
			return &typingForm{name: string(s)}, nil
		}),
		"NewType": core.Fn("NewType", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var name string
			var tp starlark.Value
			if err := starlark.UnpackPositionalArgs("NewType", args, kwargs, 2, &name, &tp); err != nil {
				return nil, err
			}
			return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var v starlark.Value
				if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &v); err != nil {
					return nil, err
				}
				return v, nil
			}), nil
		}),
		"overload":          core.Fn("overload", identity),
		"final":             core.Fn("final", identity),
		"runtime_checkable": core.Fn("runtime_checkable", identity),
		"no_type_check":     core.Fn("no_type_check", identity),
	}
	for _, n := range []string{"Any", "List", "Dict", "Set", "FrozenSet", "Tuple", "Optional", "Union", "Callable",
		"Iterable", "Iterator", "Sequence", "Mapping", "MutableMapping", "MutableSequence", "Generator", "Type",
		"Literal", "Final", "ClassVar", "Annotated", "NoReturn", "Hashable", "Sized", "Collection", "Container",
		"AbstractSet", "MutableSet", "Deque", "DefaultDict", "OrderedDict", "Counter", "ChainMap", "Awaitable",
		"Coroutine", "AsyncIterator", "AsyncIterable", "Reversible", "SupportsInt", "SupportsFloat", "Text",
		"AnyStr", "Pattern", "Match", "IO", "TextIO", "BinaryIO", "Protocol", "Generic", "TypedDict", "Self",
		"Never", "LiteralString", "Required", "NotRequired", "ParamSpec", "Concatenate", "TypeAlias", "TypeGuard"} {
		m[n] = &typingForm{name: n}
	}
	return m
}

func identity(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackPositionalArgs("decorator", args, kwargs, 1, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// Immutable: copy.copy and copy.deepcopy return it as it is.
func (*typingForm) Immutable() {}

// Module returns a new typing module.
func Module() *core.PyModule { return core.NewModule("typing", members()) }
