package core

import (
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Keyword arguments written after a ** in a call. go.starlark.net's calls
// take keywords before **kwargs, which would put them first in the
// callee's **kwargs; Python keeps the order of the call.

func SaKwargs(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 1 || len(kwargs) > 0 {
		return nil, Errorf(pyexc.TypeError, "%s: bad arguments", contract.HelperKwargs)
	}
	fn, _ := starlark.AsString(args[0])
	out := starlark.NewDict(len(args))
	put := func(k, v starlark.Value) error {
		if _, ok := k.(starlark.String); !ok {
			return Errorf(pyexc.TypeError, "keywords must be strings")
		}
		if _, found, _ := out.Get(k); found {
			return Errorf(pyexc.TypeError, "%s() got multiple values for keyword argument '%s'", fn, string(k.(starlark.String)))
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
			return nil, Errorf(pyexc.TypeError, "%s() argument after ** must be a mapping, not %s", fn, TypeName(part))
		}
		for _, kv := range m.Items() {
			if err := put(kv[0], kv[1]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
