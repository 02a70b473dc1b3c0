package builtins

import (
	"sort"

	"go.starlark.net/starlark"
)

// PyModule is an importable module: a named, immutable set of members.
// Its attribute errors and repr are CPython's.
type PyModule struct {
	name    string
	members starlark.StringDict
}

var (
	_ starlark.HasAttrs = (*PyModule)(nil)
	_ Typed             = (*PyModule)(nil)
)

// Name returns the module's dotted name.
func (m *PyModule) Name() string { return m.name }

func (m *PyModule) String() string         { return "<module '" + m.name + "' (built-in)>" }
func (m *PyModule) Type() string           { return "module" }
func (m *PyModule) Freeze()                { m.members.Freeze() }
func (m *PyModule) Truth() starlark.Bool   { return true }
func (m *PyModule) Hash() (uint32, error)  { return starlark.String(m.name).Hash() }
func (m *PyModule) PyType() starlark.Value { return typeModule }

// Attr returns a member, or AttributeError worded as CPython's.
func (m *PyModule) Attr(name string) (starlark.Value, error) {
	if v, ok := m.members[name]; ok {
		return v, nil
	}
	if name == "__name__" {
		return starlark.String(m.name), nil
	}
	return nil, Errorf("AttributeError", "module '%s' has no attribute '%s'", m.name, name)
}

// AttrNames lists the members in sorted order.
func (m *PyModule) AttrNames() []string {
	names := m.members.Keys()
	sort.Strings(names)
	return names
}

// modules maps importable names to constructors. Each import gets a fresh
// module value, so that state (random's generator) is never shared
// between executions.
var modules = map[string]func() *PyModule{}

func register(name string, build func() starlark.StringDict) {
	modules[name] = func() *PyModule {
		members := build()
		// The module's exception classes, which "except" needs by name.
		for _, exc := range moduleExceptions[name] {
			members[exc] = exceptionClasses[exc]
		}
		return &PyModule{name: name, members: members}
	}
}

// moduleExceptions are the exception classes modules raise (see
// ExceptionParents for their bases).
var moduleExceptions = map[string][]string{
	"json":       {"JSONDecodeError"},
	"statistics": {"StatisticsError"},
	"re":         {"error"},
	"queue":      {"Empty", "Full"},
}

// Module returns the importable module called name (a dotted name such
// as "collections.abc"), if the engine has it. Modules offer no file,
// network, process or environment access and nothing reflective.
func Module(name string) (starlark.Value, bool) {
	build, ok := modules[name]
	if !ok {
		return nil, false
	}
	return build(), true
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

func fn(name string, f builtinFn) *starlark.Builtin { return starlark.NewBuiltin(name, f) }
