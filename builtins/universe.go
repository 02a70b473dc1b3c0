package builtins

import (
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Universe returns the Python-compatible builtins, used in place of
// starlark.Universe. Every builtin whose time or memory depends on its
// arguments checks the deadline and charges the memory budget. The
// engine adds final_answer and the tools.
func Universe() starlark.StringDict {
	u := starlark.StringDict{
		"None":  starlark.None,
		"True":  starlark.True,
		"False": starlark.False,

		"int":       core.TypeInt,
		"float":     core.TypeFloat,
		"bool":      core.TypeBool,
		"str":       core.TypeStr,
		"bytes":     core.TypeBytes,
		"list":      core.TypeList,
		"tuple":     core.TypeTuple,
		"dict":      core.TypeDict,
		"set":       core.TypeSet,
		"frozenset": core.TypeFrozenSet,
		"range":     core.TypeRange,
		"slice":     core.TypeSlice,
		"type":      core.TypeType,
		"object":    core.TypeObject,
	}
	for name, fn := range universeFuncs {
		if borrowingFuncs[name] {
			u[name] = starlark.NewBorrowingBuiltin(name, fn)
		} else {
			u[name] = starlark.NewBuiltin(name, fn)
		}
	}
	u["property"] = core.PropertyFn
	u["staticmethod"] = core.StaticmethodFn
	u["classmethod"] = core.ClassmethodFn
	u["NotImplemented"] = core.NotImplemented
	core.UniverseExceptions(u)
	return u
}

// universeFuncs are the builtin functions, by name.
var universeFuncs = map[string]core.BuiltinFn{
	"abs": core.PyAbs, "all": core.PyAll, "any": core.PyAny, "ascii": core.PyASCII, "bin": core.PyBin,
	"callable": core.PyCallable, "chr": core.PyChr, "dir": core.PyDir, "divmod": core.PyDivmod,
	"enumerate": core.PyEnumerate, "filter": core.PyFilter, "format": core.PyFormat,
	"getattr": core.PyGetattr, "hasattr": core.PyHasattr, "hash": core.PyHash, "hex": core.PyHex, "id": core.PyID,
	"isinstance": core.PyIsinstance, "issubclass": core.PyIssubclass, "iter": core.PyIterFn,
	"len": core.PyLenFn, "map": core.PyMap, "max": core.PyMax, "min": core.PyMin, "next": core.PyNext,
	"oct": core.PyOct, "ord": core.PyOrd, "pow": core.PyPowFn, "print": core.PyPrint, "repr": core.PyRepr,
	"reversed": core.PyReversed, "round": core.PyRound, "setattr": core.PySetattr,
	"sorted": core.PySorted, "sum": core.PySum, "zip": core.PyZip, "vars": core.PyVars,
}

// borrowingFuncs are the builtins, among those called in hot loops, that
// neither keep nor modify their argument slice: the interpreter passes
// them a view of its stack instead of a copy (starlark.ArgsBorrower).
// Add a name only after reading its function for that.
var borrowingFuncs = map[string]bool{"len": true, "isinstance": true, "abs": true}
