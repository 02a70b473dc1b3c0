package core

import (
	"sort"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// PyModule is an importable module: a named, immutable set of members.
// Its attribute errors and repr are CPython's.
var (
	_ starlark.HasAttrs = (*PyModule)(nil)
	_ Typed             = (*PyModule)(nil)
)

type PyModule struct {
	ModName string
	Members starlark.StringDict
}

func Fn(name string, f BuiltinFn) *starlark.Builtin { return starlark.NewBuiltin(name, f) }

// Name returns the module's dotted name.
func (m *PyModule) Name() string { return m.ModName }

func (m *PyModule) String() string { return "<module '" + m.ModName + "' (built-in)>" }

func (m *PyModule) Type() string { return "module" }

func (m *PyModule) Freeze() { m.Members.Freeze() }

func (m *PyModule) Truth() starlark.Bool { return true }

func (m *PyModule) Hash() (uint32, error) { return starlark.String(m.ModName).Hash() }

func (m *PyModule) PyType() starlark.Value { return typeModule }

// Attr returns a member, or AttributeError worded as CPython's.
func (m *PyModule) Attr(name string) (starlark.Value, error) {
	if v, ok := m.Members[name]; ok {
		return v, nil
	}
	if name == "__name__" {
		return starlark.String(m.ModName), nil
	}
	return nil, Errorf(pyexc.AttributeError, "module '%s' has no attribute '%s'", m.ModName, name)
}

// AttrNames lists the members in sorted order.
func (m *PyModule) AttrNames() []string {
	names := m.Members.Keys()
	sort.Strings(names)
	return names
}

// NewModule makes the module called name from its members, adding the
// exception classes the module raises, which "except" needs by name.
func NewModule(name string, members starlark.StringDict) *PyModule {
	for _, t := range pyexc.Of(name) {
		members[t.Name()] = excClasses[t]
	}
	return &PyModule{ModName: name, Members: members}
}
