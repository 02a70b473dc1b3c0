package copy

import (
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/vm/starlark"
)

func members() starlark.StringDict {
	mk := func(name string, deep bool) *starlark.Builtin {
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x, memo starlark.Value
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &x, &memo); err != nil {
				return nil, err
			}
			return core.CopyValue(th, x, deep, map[starlark.Value]starlark.Value{}, 0)
		})
	}
	return starlark.StringDict{"copy": mk("copy", false), "deepcopy": mk("deepcopy", true)}
}

// Module returns a new copy module.
func Module() *core.PyModule { return core.NewModule("copy", members()) }
