package builtins

// SCAFFOLDING: the builtins helper replaces this file with the real
// Python-compatible universe, modules and runtime helpers.

import (
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// CompatAttrs are the attribute names the front end routes through
// HelperAttr.
var CompatAttrs = map[string]bool{"join": true, "replace": true}

// Universe returns the Python-compatible builtins, to be used in place of
// starlark.Universe.
func Universe() starlark.StringDict {
	u := starlark.StringDict{}
	for k, v := range starlark.Universe {
		u[k] = v
	}
	return u
}

// Runtime returns the helpers named in helpers.go (except HelperImport,
// which the engine provides).
func Runtime() starlark.StringDict {
	return starlark.StringDict{
		HelperMul: starlark.NewBuiltin(HelperMul, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			return starlark.Binary(syntax.STAR, args[0], args[1])
		}),
	}
}

// Module returns the importable module called name, if the engine has it.
func Module(name string) (starlark.Value, bool) { return nil, false }

// Repr renders v as Python's repr() would.
func Repr(v starlark.Value) string { return v.String() }

// Str renders v as Python's str() would.
func Str(v starlark.Value) string {
	if s, ok := v.(starlark.String); ok {
		return string(s)
	}
	return fmt.Sprint(v)
}
