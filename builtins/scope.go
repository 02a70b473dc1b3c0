package builtins

// Variables a lowered try body assigns. A try body runs as a nested
// function, and a Starlark function cannot assign its caller's
// variables, so the front end moves such variables into cells (in a
// function) or assigns them through the module's global slots (at top
// level).

import (
	"reflect"
	"unsafe"

	"go.starlark.net/starlark"
)

const (
	// HelperCell: __sa_cell("x") is an unbound cell for local variable x,
	// __sa_cell("x", v) one holding v. Lowered code reads and writes its
	// attribute v.
	HelperCell = "__sa_cell"
	// HelperUnbind: __sa_unbind(cell) is del x for a variable in a cell.
	HelperUnbind = "__sa_unbind"
	// HelperDelGlobal: __sa_delglobal("x") is del x for a global of the
	// calling function's module.
	HelperDelGlobal = "__sa_delglobal"
	// HelperGlobals: __sa_globals() returns the calling function's module
	// globals as an object whose attributes are the global variables, so
	// that a nested function can assign them (g.x = 1).
	HelperGlobals = "__sa_globals"
)

// Cell holds one local variable shared by a function and the nested
// functions its try statements are lowered to.
type Cell struct {
	name string
	v    starlark.Value // nil: unbound
}

var (
	_ starlark.HasAttrs    = (*Cell)(nil)
	_ starlark.HasSetField = (*Cell)(nil)
)

func (c *Cell) String() string        { return "<cell>" }
func (c *Cell) Type() string          { return "cell" }
func (c *Cell) Freeze()               {}
func (c *Cell) Truth() starlark.Bool  { return true }
func (c *Cell) Hash() (uint32, error) { return uint32(uintptrOf(c)), nil }
func (c *Cell) AttrNames() []string   { return []string{"v"} }

// Attr reads the variable, failing as Python does when it is unbound.
func (c *Cell) Attr(name string) (starlark.Value, error) {
	if c.v == nil {
		return nil, Errorf("UnboundLocalError", "cannot access local variable '%s' where it is not associated with a value", c.name)
	}
	return c.v, nil
}

// SetField assigns the variable.
func (c *Cell) SetField(name string, v starlark.Value) error {
	c.v = v
	return nil
}

// SizeOf lets the engine's memory walk see the value.
func (c *Cell) SizeOf(visit func(starlark.Value)) int64 {
	if c.v != nil {
		visit(c.v)
	}
	return 16
}

func saCell(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var v starlark.Value
	if err := starlark.UnpackPositionalArgs(HelperCell, args, kwargs, 1, &name, &v); err != nil {
		return nil, err
	}
	return &Cell{name: name, v: v}, nil
}

// moduleGlobals gives lowered code write access to its module's global
// variables. go.starlark.net keeps a module's globals in an unexported
// slice indexed by the compiled program's global bindings, with no
// setter; this reaches both through reflection, checking every field it
// relies on so that a change in go.starlark.net's layout is an error, not
// memory corruption.
type moduleGlobals struct {
	slots reflect.Value // the module's []starlark.Value, settable
	index map[string]int
	// also are the views of the other modules a write must reach: the
	// module of the chunk running, when the function assigning a global
	// was defined by an earlier one.
	also *moduleGlobals
	// engine is the executor's globals (ExecutorGlobalsKey), or nil.
	engine starlark.StringDict
}

// ExecutorGlobalsKey is the thread-local key under which an engine that
// keeps variables between executions may store its globals dictionary
// (a starlark.StringDict). A function defined in an earlier execution
// that assigns a global (global x) then updates it there too, so the
// next execution sees the value; without it such an assignment is
// refused unless the running chunk itself uses the name.
const ExecutorGlobalsKey = "star-agent.executor-globals"

var valueType = reflect.TypeOf((*starlark.Value)(nil)).Elem()

func newModuleGlobals(m *starlark.Module) (*moduleGlobals, error) {
	bad := Errorf("SystemError", "%s: unsupported go.starlark.net module layout", HelperGlobals)
	mv := reflect.ValueOf(m).Elem()
	g := mv.FieldByName("globals")
	if !g.IsValid() || g.Kind() != reflect.Slice || g.Type().Elem() != valueType {
		return nil, bad
	}
	g = reflect.NewAt(g.Type(), unsafe.Pointer(g.UnsafeAddr())).Elem()
	p := mv.FieldByName("program")
	if !p.IsValid() || p.Kind() != reflect.Pointer || p.IsNil() {
		return nil, bad
	}
	c := p.Elem().FieldByName("compiled")
	if !c.IsValid() || c.Kind() != reflect.Pointer || c.IsNil() {
		return nil, bad
	}
	bs := c.Elem().FieldByName("Globals")
	if !bs.IsValid() || bs.Kind() != reflect.Slice || bs.Len() != g.Len() {
		return nil, bad
	}
	mg := &moduleGlobals{slots: g, index: make(map[string]int, bs.Len())}
	for i := 0; i < bs.Len(); i++ {
		name := bs.Index(i).FieldByName("Name")
		if !name.IsValid() || name.Kind() != reflect.String {
			return nil, bad
		}
		mg.index[name.String()] = i
	}
	return mg, nil
}

func (g *moduleGlobals) String() string        { return "<globals>" }
func (g *moduleGlobals) Type() string          { return "globals" }
func (g *moduleGlobals) Freeze()               {}
func (g *moduleGlobals) Truth() starlark.Bool  { return true }
func (g *moduleGlobals) Hash() (uint32, error) { return uint32(uintptrOf(g)), nil }
func (g *moduleGlobals) AttrNames() []string   { return nil }

// Attr reads global name (for x += 1 on a global).
func (g *moduleGlobals) Attr(name string) (starlark.Value, error) {
	if i, ok := g.index[name]; ok {
		if v := g.slots.Index(i).Interface(); v != nil {
			return v.(starlark.Value), nil
		}
	}
	return nil, Errorf("NameError", "name '%s' is not defined", name)
}

// SetField assigns global name. The front end declares every name it
// assigns this way, so a missing slot is an internal error.
func (g *moduleGlobals) SetField(name string, v starlark.Value) error {
	i, ok := g.index[name]
	if !ok {
		return Errorf("SystemError", "global '%s' was not declared", name)
	}
	if g.also != nil {
		j, ok := g.also.index[name]
		if !ok && g.engine == nil {
			return Errorf("RuntimeError", "assigning the global '%s' from a function defined in an earlier step is not supported by the Starlark engine unless this step uses '%s' too", name, name)
		}
		if ok {
			g.also.slots.Index(j).Set(reflect.ValueOf(&v).Elem())
		}
	}
	if g.engine != nil {
		g.engine[name] = v
	}
	g.slots.Index(i).Set(reflect.ValueOf(&v).Elem())
	return nil
}

const viewsKey = "star-agent.global-views"

func saUnbind(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var c *Cell
	if len(args) != 1 || len(kwargs) != 0 {
		return nil, Errorf("TypeError", "%s takes 1 argument", HelperUnbind)
	}
	c, ok := args[0].(*Cell)
	if !ok {
		return nil, Errorf("TypeError", "%s: not a cell", HelperUnbind)
	}
	if c.v == nil {
		return nil, Errorf("UnboundLocalError", "cannot access local variable '%s' where it is not associated with a value", c.name)
	}
	c.v = nil
	return starlark.None, nil
}

func saDelGlobal(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackPositionalArgs(HelperDelGlobal, args, kwargs, 1, &name); err != nil {
		return nil, err
	}
	v, err := saGlobals(th, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	return starlark.None, v.(*moduleGlobals).unbind(name)
}

// unbind deletes global name (del x), wherever SetField would write it.
func (g *moduleGlobals) unbind(name string) error {
	i, ok := g.index[name]
	if !ok || g.slots.Index(i).IsNil() {
		return Errorf("NameError", "name '%s' is not defined", name)
	}
	zero := reflect.Zero(valueType)
	if g.also != nil {
		j, ok := g.also.index[name]
		if !ok && g.engine == nil {
			return Errorf("RuntimeError", "deleting the global '%s' from a function defined in an earlier step is not supported by the Starlark engine unless this step uses '%s' too", name, name)
		}
		if ok {
			g.also.slots.Index(j).Set(zero)
		}
	}
	if g.engine != nil {
		delete(g.engine, name)
	}
	g.slots.Index(i).Set(zero)
	return nil
}

func saGlobals(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args)+len(kwargs) > 0 || th.CallStackDepth() < 2 {
		return nil, Errorf("TypeError", "%s takes no arguments", HelperGlobals)
	}
	fn, ok := th.DebugFrame(1).Callable().(*starlark.Function)
	if !ok {
		return nil, Errorf("SystemError", "%s must be called from a function", HelperGlobals)
	}
	m := fn.Module()
	// The running chunk's module: that of the outermost frame, its
	// top-level code.
	var top *starlark.Module
	if f, ok := th.DebugFrame(th.CallStackDepth() - 1).Callable().(*starlark.Function); ok {
		top = f.Module()
	}
	// One view per module and thread: a try in a loop pays for the
	// reflection once.
	cache, _ := th.Local(viewsKey).(map[*starlark.Module]*moduleGlobals)
	if g, ok := cache[m]; ok {
		return g, nil
	}
	g, err := newModuleGlobals(m)
	if err != nil {
		return nil, err
	}
	if top != nil && top != m {
		if g.also, err = newModuleGlobals(top); err != nil {
			return nil, err
		}
	}
	g.engine, _ = th.Local(ExecutorGlobalsKey).(starlark.StringDict)
	if cache == nil {
		cache = map[*starlark.Module]*moduleGlobals{}
		th.SetLocal(viewsKey, cache)
	}
	cache[m] = g
	return g, nil
}
