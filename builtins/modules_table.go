package builtins

import (
	"sort"

	"github.com/star-agent/star-agent/builtins/core"
	pyabc "github.com/star-agent/star-agent/builtins/lib/abc"
	pybisect "github.com/star-agent/star-agent/builtins/lib/bisect"
	pycollections "github.com/star-agent/star-agent/builtins/lib/collections"
	pycontextlib "github.com/star-agent/star-agent/builtins/lib/contextlib"
	pycopy "github.com/star-agent/star-agent/builtins/lib/copy"
	pydatetime "github.com/star-agent/star-agent/builtins/lib/datetime"
	pydecimal "github.com/star-agent/star-agent/builtins/lib/decimal"
	pyfractions "github.com/star-agent/star-agent/builtins/lib/fractions"
	pyfunctools "github.com/star-agent/star-agent/builtins/lib/functools"
	pyheapq "github.com/star-agent/star-agent/builtins/lib/heapq"
	pyitertools "github.com/star-agent/star-agent/builtins/lib/itertools"
	pyjson "github.com/star-agent/star-agent/builtins/lib/json"
	pymath "github.com/star-agent/star-agent/builtins/lib/math"
	pyoperator "github.com/star-agent/star-agent/builtins/lib/operator"
	pyqueue "github.com/star-agent/star-agent/builtins/lib/queue"
	pyrandom "github.com/star-agent/star-agent/builtins/lib/random"
	pyre "github.com/star-agent/star-agent/builtins/lib/re"
	pystat "github.com/star-agent/star-agent/builtins/lib/stat"
	pystatistics "github.com/star-agent/star-agent/builtins/lib/statistics"
	pystring "github.com/star-agent/star-agent/builtins/lib/string"
	pystruct "github.com/star-agent/star-agent/builtins/lib/struct"
	pytextwrap "github.com/star-agent/star-agent/builtins/lib/textwrap"
	pytime "github.com/star-agent/star-agent/builtins/lib/time"
	pytyping "github.com/star-agent/star-agent/builtins/lib/typing"
	pyunicodedata "github.com/star-agent/star-agent/builtins/lib/unicodedata"
	"github.com/star-agent/star-agent/vm/starlark"
)

// modules are the importable modules, by name: each returns a new
// module value, so that state (random's generator) is never
// shared between executions. Adding a module is adding a line here.
var modules = map[string]func() *core.PyModule{
	"abc":         pyabc.Module,
	"bisect":      pybisect.Module,
	"collections": pycollections.Module,
	"contextlib":  pycontextlib.Module,
	"copy":        pycopy.Module,
	"dataclasses": func() *core.PyModule { return core.NewModule("dataclasses", core.DataclassesModule()) },
	"datetime":    pydatetime.Module,
	"decimal":     pydecimal.Module,
	"enum":        func() *core.PyModule { return core.NewModule("enum", core.EnumModule()) },
	"fractions":   pyfractions.Module,
	"functools":   pyfunctools.Module,
	"heapq":       pyheapq.Module,
	"itertools":   pyitertools.Module,
	"json":        pyjson.Module,
	"math":        pymath.Module,
	"operator":    pyoperator.Module,
	"queue":       pyqueue.Module,
	"random":      pyrandom.Module,
	"re":          pyre.Module,
	"stat":        pystat.Module,
	"statistics":  pystatistics.Module,
	"string":      pystring.Module,
	"struct":      pystruct.Module,
	"textwrap":    pytextwrap.Module,
	"time":        pytime.Module,
	"typing":      pytyping.Module,
	"unicodedata": pyunicodedata.Module,
}

// Module returns a new value of the importable module called name (a
// dotted name such as "collections.abc"), if the engine has it. Modules
// offer no file, network, process or environment access and nothing
// reflective.
func Module(name string) (starlark.Value, bool) {
	build, ok := modules[name]
	if !ok {
		return nil, false
	}
	return build(), true
}

// HasModule reports whether Module can provide name, without building it.
func HasModule(name string) bool {
	_, ok := modules[name]
	return ok
}

// ModuleNames lists the modules Module can provide, sorted.
func ModuleNames() []string {
	names := make([]string, 0, len(modules))
	for n := range modules {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
