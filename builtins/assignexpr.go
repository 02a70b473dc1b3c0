package builtins

// Assignment expressions (x := v) inside comprehensions and generator
// expressions bind x in the enclosing function or module, which a
// Starlark comprehension cannot assign: the front end keeps such a
// variable in a cell, or assigns the global through the module's globals
// view, with this helper.

import "go.starlark.net/starlark"

// HelperSetVar: __sa_setvar(obj, "name", v) sets attribute name of obj (a
// cell or the globals view of HelperGlobals) to v and returns v.
const HelperSetVar = "__sa_setvar"

func init() { moreRuntime[HelperSetVar] = saSetVar }

func saSetVar(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var obj, v starlark.Value
	var name string
	if err := starlark.UnpackPositionalArgs(HelperSetVar, args, kwargs, 3, &obj, &name, &v); err != nil {
		return nil, err
	}
	f, ok := obj.(starlark.HasSetField)
	if !ok {
		return nil, Errorf("TypeError", "%s: cannot assign", HelperSetVar)
	}
	if err := f.SetField(name, v); err != nil {
		return nil, err
	}
	return v, nil
}
