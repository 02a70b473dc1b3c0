package core

import (
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Assignment expressions (x := v) inside comprehensions and generator
// expressions bind x in the enclosing function or module, which a
// Starlark comprehension cannot assign: the front end keeps such a
// variable in a cell, or assigns the global through the module's globals
// view, with this helper.

func SaSetVar(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var obj, v starlark.Value
	var name string
	if err := starlark.UnpackPositionalArgs(contract.HelperSetVar, args, kwargs, 3, &obj, &name, &v); err != nil {
		return nil, err
	}
	f, ok := obj.(starlark.HasSetField)
	if !ok {
		return nil, Errorf(pyexc.TypeError, "%s: cannot assign", contract.HelperSetVar)
	}
	if err := f.SetField(name, v); err != nil {
		return nil, err
	}
	return v, nil
}
