package builtins

// Keyword arguments written after a ** in a call. go.starlark.net's calls
// take keywords before **kwargs, which would put them first in the
// callee's **kwargs; Python keeps the order of the call.

import (
	"go.starlark.net/starlark"
)

// HelperKwargs: __sa_kwargs("f", part, ...) is the dict that a call of
// f receives through ** when keywords follow a **: each part is a **
// operand (a mapping) or a (name, value) pair (a keyword argument), merged
// in the order of the call. A name given twice is a TypeError, as in
// Python.
const HelperKwargs = "__sa_kwargs"

func init() { moreRuntime[HelperKwargs] = saKwargs }

func saKwargs(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 1 || len(kwargs) > 0 {
		return nil, Errorf("TypeError", "%s: bad arguments", HelperKwargs)
	}
	fn, _ := starlark.AsString(args[0])
	out := starlark.NewDict(len(args))
	put := func(k, v starlark.Value) error {
		if _, ok := k.(starlark.String); !ok {
			return Errorf("TypeError", "keywords must be strings")
		}
		if _, found, _ := out.Get(k); found {
			return Errorf("TypeError", "%s() got multiple values for keyword argument '%s'", fn, string(k.(starlark.String)))
		}
		return out.SetKey(k, v)
	}
	for _, part := range args[1:] {
		if kv, ok := part.(starlark.Tuple); ok && len(kv) == 2 {
			if err := put(kv[0], kv[1]); err != nil {
				return nil, err
			}
			continue
		}
		m, ok := part.(starlark.IterableMapping)
		if !ok {
			return nil, Errorf("TypeError", "%s() argument after ** must be a mapping, not %s", fn, TypeName(part))
		}
		for _, kv := range m.Items() {
			if err := put(kv[0], kv[1]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
