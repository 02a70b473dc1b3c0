package core

import (
	"reflect"
	"unsafe"
	"weak"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Variables a lowered try body assigns. A try body runs as a nested
// function, and a Starlark function cannot assign its caller's
// variables, so the front end moves such variables into cells (in a
// function) or assigns them through the module's global slots (at top
// level).

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
func (c *Cell) Hash() (uint32, error) { return uint32(UintptrOf(c)), nil }
func (c *Cell) AttrNames() []string   { return []string{"free", "v"} }

// Attr reads the variable, failing as Python does when it is unbound: v
// from the function that owns it, free from a function nested in it.
func (c *Cell) Attr(name string) (starlark.Value, error) {
	if c.v == nil && name == "free" {
		return nil, Errorf(pyexc.NameError, "cannot access free variable '%s' where it is not associated with a value in enclosing scope", c.name)
	}
	if c.v == nil {
		return nil, Errorf(pyexc.UnboundLocalError, "cannot access local variable '%s' where it is not associated with a value", c.name)
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

func SaCell(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var v starlark.Value
	if err := starlark.UnpackPositionalArgs(contract.HelperCell, args, kwargs, 1, &name, &v); err != nil {
		return nil, err
	}
	return &Cell{name: name, v: v}, nil
}

// moduleGlobals gives lowered code write access to its module's global
// variables. go.starlark.net keeps a module's globals in an unexported
// slice indexed by the compiled program's global bindings, with no
// setter; moduleSlots reaches both through reflection, checking every
// field it relies on so that a change in go.starlark.net's layout is an
// error, not memory corruption.
//
// Within one go.starlark.net program that is the whole story. An engine
// that runs each step as its own program (a REPL) has one module per
// step, each with its own copy of the globals, and gives the views a
// Namespace (ExecutorGlobalsKey) that holds the Python module namespace
// they all stand for: see Namespace.
type moduleGlobals struct {
	slots []starlark.Value // the module's globals, shared with it
	index map[string]int
	// also is, without a namespace, the view of the module of the chunk
	// running, when the function assigning a global was defined by an
	// earlier one.
	also *moduleGlobals
	// ns is the executor's namespace (ExecutorGlobalsKey), or nil.
	ns *Namespace
}

var valueType = reflect.TypeOf((*starlark.Value)(nil)).Elem()

// moduleSlots returns the global variables of m, sharing their storage
// with m, and the index of each name among them.
func moduleSlots(m *starlark.Module) ([]starlark.Value, map[string]int, error) {
	bad := Errorf(pyexc.SystemError, "%s: unsupported go.starlark.net module layout", contract.HelperGlobals)
	mv := reflect.ValueOf(m).Elem()
	g := mv.FieldByName("globals")
	if !g.IsValid() || g.Kind() != reflect.Slice || g.Type().Elem() != valueType {
		return nil, nil, bad
	}
	slots := *(*[]starlark.Value)(unsafe.Pointer(g.UnsafeAddr()))
	p := mv.FieldByName("program")
	if !p.IsValid() || p.Kind() != reflect.Pointer || p.IsNil() {
		return nil, nil, bad
	}
	c := p.Elem().FieldByName("compiled")
	if !c.IsValid() || c.Kind() != reflect.Pointer || c.IsNil() {
		return nil, nil, bad
	}
	bs := c.Elem().FieldByName("Globals")
	if !bs.IsValid() || bs.Kind() != reflect.Slice || bs.Len() != len(slots) {
		return nil, nil, bad
	}
	index := make(map[string]int, bs.Len())
	for i := 0; i < bs.Len(); i++ {
		name := bs.Index(i).FieldByName("Name")
		if !name.IsValid() || name.Kind() != reflect.String {
			return nil, nil, bad
		}
		index[name.String()] = i
	}
	return slots, index, nil
}

func newModuleGlobals(m *starlark.Module) (*moduleGlobals, error) {
	slots, index, err := moduleSlots(m)
	if err != nil {
		return nil, err
	}
	return &moduleGlobals{slots: slots, index: index}, nil
}

func (g *moduleGlobals) String() string        { return "<globals>" }
func (g *moduleGlobals) Type() string          { return "globals" }
func (g *moduleGlobals) Freeze()               {}
func (g *moduleGlobals) Truth() starlark.Bool  { return true }
func (g *moduleGlobals) Hash() (uint32, error) { return uint32(UintptrOf(g)), nil }
func (g *moduleGlobals) AttrNames() []string   { return nil }

// Attr reads global name (for x += 1 on a global).
func (g *moduleGlobals) Attr(name string) (starlark.Value, error) {
	if g.ns != nil {
		if v := g.ns.get(name); v != nil {
			return v, nil
		}
	} else if i, ok := g.index[name]; ok && g.slots[i] != nil {
		return g.slots[i], nil
	}
	return nil, Errorf(pyexc.NameError, "name '%s' is not defined", name)
}

// SetField assigns global name. The front end declares every name it
// assigns this way, so a missing slot is an internal error.
func (g *moduleGlobals) SetField(name string, v starlark.Value) error {
	i, ok := g.index[name]
	if !ok {
		return Errorf(pyexc.SystemError, "global '%s' was not declared", name)
	}
	if g.ns != nil {
		if err := g.ns.protected(name, false); err != nil {
			return err
		}
		g.ns.set(name, v)
	} else if g.also != nil {
		j, ok := g.also.index[name]
		if !ok {
			return Errorf(pyexc.RuntimeError, "assigning the global '%s' from a function defined in an earlier step is not supported by the Starlark engine unless this step uses '%s' too", name, name)
		}
		g.also.slots[j] = v
	}
	g.slots[i] = v
	return nil
}

// Namespace is the Python module namespace of an engine that runs each
// step of a session as its own go.starlark.net program (see
// ExecutorGlobalsKey). Each step's program has its own module, whose
// global slots its functions read, even when a later step calls them;
// Python has one namespace. The engine keeps the namespace in Globals
// between steps (go.starlark.net's ExecREPLChunk copies a step's
// module into it when the step ends, even after an error) and tells the
// namespace about each step's module as the step starts (EnterStep).
// Then:
//
//   - the value of a global during a step is that of the running step's
//     module when it has the name (its top-level code assigns it there),
//     else that of Globals;
//   - a function that assigns a global (global x; x = 1, x += 1, del x)
//     assigns it in Globals and in every module still alive that has
//     the name, so that every function sees it at once, whichever step
//     defined it, and the next step finds it in Globals;
//   - Sync, before a step, gives every module still alive the values
//     of Globals, so that functions of earlier steps read the names
//     later steps rebound.
//
// Modules are held weakly: a step whose functions are all gone is
// forgotten. A Namespace belongs to one execution at a time.
type Namespace struct {
	Globals starlark.StringDict
	// Protected, if set, returns the error that refuses to assign
	// (deleted: to delete) name, or nil: names the engine's front end
	// refuses to let a step bind, which a function lowered before they
	// became protected may still try to assign.
	Protected func(name string, deleted bool) error
	mods      []*stepModule // oldest first
	current   *stepModule   // the running step's, or nil
}

// stepModule is one step's module. Its index does not keep the module
// alive, so neither does the namespace.
type stepModule struct {
	m     weak.Pointer[starlark.Module]
	index map[string]int
	// reads is, once the step has ended, the slots of the globals its
	// functions refer to (never empty: a step whose functions read none
	// is forgotten): the only ones a function can read after the step,
	// and so the only ones Sync keeps up to date. nil while it runs.
	reads []globalSlot
}

// globalSlot is a global's name and its slot in a step's module.
type globalSlot struct {
	name string
	i    int
}

// slots returns the module's globals, or nil once the module is gone.
func (s *stepModule) slots() []starlark.Value {
	m := s.m.Value()
	if m == nil {
		return nil
	}
	return globalsOf(m)
}

// globalsOffset is the offset of a starlark.Module's globals slice,
// which moduleSlots checked when the module was entered.
var globalsOffset = func() uintptr {
	f, ok := reflect.TypeFor[starlark.Module]().FieldByName("globals")
	if !ok || f.Type.Kind() != reflect.Slice || f.Type.Elem() != valueType {
		return ^uintptr(0)
	}
	return f.Offset
}()

// globalsOf returns the global variables of m, a module moduleSlots
// accepted, without the checks and the index.
func globalsOf(m *starlark.Module) []starlark.Value {
	return *(*[]starlark.Value)(unsafe.Add(unsafe.Pointer(m), globalsOffset))
}

// NewNamespace returns the namespace whose values are globals.
func NewNamespace(globals starlark.StringDict) *Namespace {
	return &Namespace{Globals: globals}
}

// Modules returns how many step modules the namespace still reaches.
func (ns *Namespace) Modules() int {
	n := 0
	for _, s := range ns.mods {
		if s.m.Value() != nil {
			n++
		}
	}
	return n
}

// EnterStep makes m, whose top-level code is starting, the running
// step's module. Calling it again for the same module does nothing.
func (ns *Namespace) EnterStep(m *starlark.Module) error {
	if ns.current != nil && ns.current.m.Value() == m {
		return nil
	}
	_, index, err := moduleSlots(m)
	if err != nil {
		return err
	}
	live := ns.mods[:0]
	for _, s := range ns.mods {
		if s.m.Value() != nil {
			live = append(live, s)
		}
	}
	clear(ns.mods[len(live):])
	s := &stepModule{m: weak.Make(m), index: index}
	ns.mods = append(live, s)
	ns.current = s
	return nil
}

// EndStep forgets the running step's module as such (it stays among
// the modules while alive).
func (ns *Namespace) EndStep() { ns.current = nil }

// Sync gives every module still alive the values of Globals (nil, that
// is unbound, where Globals lacks a name): of the globals its functions
// refer to, for a step that has ended (EndStepReading), of all of them
// otherwise. Its cost is that of those names, not of the state or of
// every name the steps bound.
func (ns *Namespace) Sync() {
	for _, s := range ns.mods {
		slots := s.slots()
		switch {
		case slots == nil:
		case s.reads != nil:
			for _, r := range s.reads {
				slots[r.i] = ns.Globals[r.name]
			}
		default:
			for name, i := range s.index {
				slots[i] = ns.Globals[name]
			}
		}
	}
}

func (ns *Namespace) protected(name string, deleted bool) error {
	if ns.Protected == nil {
		return nil
	}
	return ns.Protected(name, deleted)
}

// get returns the value of global name, or nil when it is unbound.
func (ns *Namespace) get(name string) starlark.Value {
	if c := ns.current; c != nil {
		if i, ok := c.index[name]; ok {
			if slots := c.slots(); slots != nil {
				return slots[i]
			}
		}
	}
	return ns.Globals[name]
}

// set assigns global name everywhere it is kept; v nil unbinds it.
func (ns *Namespace) set(name string, v starlark.Value) {
	if v == nil {
		delete(ns.Globals, name)
	} else {
		ns.Globals[name] = v
	}
	for _, s := range ns.mods {
		if i, ok := s.index[name]; ok {
			if slots := s.slots(); slots != nil {
				slots[i] = v
			}
		}
	}
}

const viewsKey = "star-agent.global-views"

func SaUnbind(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var c *Cell
	if len(args) != 1 || len(kwargs) != 0 {
		return nil, Errorf(pyexc.TypeError, "%s takes 1 argument", contract.HelperUnbind)
	}
	c, ok := args[0].(*Cell)
	if !ok {
		return nil, Errorf(pyexc.TypeError, "%s: not a cell", contract.HelperUnbind)
	}
	if c.v == nil {
		return nil, Errorf(pyexc.UnboundLocalError, "cannot access local variable '%s' where it is not associated with a value", c.name)
	}
	c.v = nil
	return starlark.None, nil
}

func SaDelGlobal(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackPositionalArgs(contract.HelperDelGlobal, args, kwargs, 1, &name); err != nil {
		return nil, err
	}
	v, err := SaGlobals(th, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	return starlark.None, v.(*moduleGlobals).unbind(name)
}

// unbind deletes global name (del x), wherever SetField would write it.
func (g *moduleGlobals) unbind(name string) error {
	i, ok := g.index[name]
	if g.ns != nil {
		if !ok || g.ns.get(name) == nil {
			return Errorf(pyexc.NameError, "name '%s' is not defined", name)
		}
		if err := g.ns.protected(name, true); err != nil {
			return err
		}
		g.ns.set(name, nil)
		g.slots[i] = nil
		return nil
	}
	if !ok || g.slots[i] == nil {
		return Errorf(pyexc.NameError, "name '%s' is not defined", name)
	}
	if g.also != nil {
		j, ok := g.also.index[name]
		if !ok {
			return Errorf(pyexc.RuntimeError, "deleting the global '%s' from a function defined in an earlier step is not supported by the Starlark engine unless this step uses '%s' too", name, name)
		}
		g.also.slots[j] = nil
	}
	g.slots[i] = nil
	return nil
}

func SaGlobals(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args)+len(kwargs) > 0 || th.CallStackDepth() < 2 {
		return nil, Errorf(pyexc.TypeError, "%s takes no arguments", contract.HelperGlobals)
	}
	fn, ok := th.DebugFrame(1).Callable().(*starlark.Function)
	if !ok {
		return nil, Errorf(pyexc.SystemError, "%s must be called from a function", contract.HelperGlobals)
	}
	m := fn.Module()
	ns, _ := th.Local(contract.ExecutorGlobalsKey).(*Namespace)
	if ns != nil && th.CallStackDepth() == 2 && fn.Name() == toplevel {
		// A step's top-level code: its module is the running step's.
		if err := ns.EnterStep(m); err != nil {
			return nil, err
		}
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
	g.ns = ns
	if ns == nil {
		// The running chunk's module: that of the outermost frame, its
		// top-level code.
		if f, ok := th.DebugFrame(th.CallStackDepth() - 1).Callable().(*starlark.Function); ok && f.Module() != m {
			if g.also, err = newModuleGlobals(f.Module()); err != nil {
				return nil, err
			}
		}
	}
	if cache == nil {
		cache = map[*starlark.Module]*moduleGlobals{}
		th.SetLocal(viewsKey, cache)
	}
	cache[m] = g
	return g, nil
}

// toplevel is the name go.starlark.net gives a program's top-level code.
const toplevel = "<toplevel>"
