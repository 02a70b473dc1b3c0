package starlarkexec

import (
	"maps"
	"slices"
	"strings"

	"github.com/star-agent/star-agent/vm/resolve"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/pyfront"
)

// Each execution is compiled as its own go.starlark.net module, and a
// function reads globals from the module it was defined in. Python has one
// module namespace: a function defined in step 1 sees a global that step 2
// rebinds, even in the middle of step 2. Three mechanisms keep Python's
// semantics:
//
//   - Between steps, the state's core.Namespace gives the modules of
//     earlier steps that are still alive the current globals (Sync, before
//     every step), whoever rebound them: a step, a tool, SetVariables.
//   - A function of any step that assigns or deletes a global (global x)
//     does so through the namespace, in the globals and in every live
//     step module at once (see core.Namespace); each step starts with a
//     call of the globals helper that makes its module the running one
//     (enterStep).
//   - A step's own top-level assignments go to its module only. So that
//     earlier functions see them during the step, the executor remembers
//     the source of every top-level def, and before a step runs, the
//     earlier functions that read a name the step binds (or a name that
//     was undefined when they were compiled), or that read such a
//     function, are defined again as a prelude of the step, in the step's
//     own module, so that they share its globals.
//
// Re-definition re-evaluates default values and decorators; functions
// stored elsewhere (in a list, a dict, a closure) keep the definition they
// had, and see the step's rebinding from the next step on.

// definition is the Python source of one top-level def.
type definition struct {
	name    string
	src     string
	unbound []string        // names undefined when it was compiled
	globals map[string]bool // the module's globals its body and defaults refer to
}

// recordDefinitions remembers the top-level defs among stmts, whose
// positions refer to lines of code.
func (st *state) recordDefinitions(stmts []syntax.Stmt, code string, unbound []string) {
	lines := strings.Split(code, "\n")
	for _, stmt := range stmts {
		def, ok := stmt.(*syntax.DefStmt)
		if !ok {
			continue
		}
		// A decorated def may be bound to the decorator's wrapper, which
		// shares the module; re-running the source re-applies decorators.
		fn, ok := st.globals[def.Name.Name].(*starlark.Function)
		if !ok {
			continue
		}
		start, end := def.Span()
		first, last := int(start.Line), int(end.Line)
		if first < 1 || last > len(lines) || first > last {
			continue
		}
		for first > 1 && strings.HasPrefix(strings.TrimSpace(lines[first-2]), "@") {
			first--
		}
		// A body ends at its last statement; keep the lines of a final
		// multi-line expression too, up to the next unindented line.
		for last < len(lines) && (strings.HasPrefix(lines[last], " ") || strings.HasPrefix(lines[last], "\t")) {
			last++
		}
		st.defs[fn] = definition{name: def.Name.Name, src: strings.Join(lines[first-1:last], "\n"), unbound: unbound, globals: globalRefs(def)}
	}
}

// globalRefs returns the names of module globals a resolved def refers to,
// in its body (nested functions and comprehensions included) or anywhere
// else in the statement.
func globalRefs(def *syntax.DefStmt) map[string]bool {
	refs := map[string]bool{}
	syntax.Walk(def, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok {
			if b, ok := id.Binding.(*resolve.Binding); ok && b.Scope == resolve.Global {
				refs[id.Name] = true
			}
		}
		return true
	})
	return refs
}

// earlier is a definition still bound, with its module's globals.
type earlier struct {
	fn      *starlark.Function
	d       definition
	globals starlark.StringDict
}

// reads reports whether the definition refers to the global name (as a
// value or as a name that was undefined when it was compiled).
func (l earlier) reads(name string) bool {
	return l.d.globals[name] || slices.Contains(l.d.unbound, name)
}

// stale reports whether the definition would read a value other than the
// current one of some global, or miss a name defined since.
func (st *state) stale(l earlier) bool {
	d := l.d
	for name := range d.globals {
		if strings.HasPrefix(name, engineNamePrefix) {
			continue // not synced (functionGlobals), and never rebound by a step
		}
		v, ok := l.globals[name]
		if cur, found := st.globals[name]; ok && found && !same(cur, v) {
			return true
		}
	}
	for _, name := range d.unbound {
		if _, ok := st.globals[name]; ok {
			return true
		}
	}
	return false
}

// same reports whether two values are the same object (or equal scalars).
func same(a, b starlark.Value) (eq bool) {
	if ta, ok := a.(starlark.Tuple); ok {
		tb, ok := b.(starlark.Tuple)
		return ok && len(ta) == len(tb) && (len(ta) == 0 || &ta[0] == &tb[0])
	}
	defer func() {
		if recover() != nil { // uncomparable dynamic types
			eq = false
		}
	}()
	return a == b
}

// prelude returns the source of the earlier definitions a chunk that binds
// the names in bound must re-create, and forgets them (they are recorded
// again once the chunk has run).
func (st *state) prelude(bound map[string]bool) string {
	// Functions of earlier steps read the names rebound since (by a step,
	// a tool, SetVariables) in their modules once those are synced; only
	// the names this step binds need re-definition for them to see.
	st.namespace().Sync()
	live := map[string]earlier{}
	for fn, d := range st.defs {
		if st.globals[d.name] == starlark.Value(fn) {
			live[d.name] = earlier{fn, d, fn.Globals()}
		} else {
			delete(st.defs, fn) // rebound by the user since: forget it
		}
	}
	chosen := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for name, l := range live {
			if chosen[name] {
				continue
			}
			need := st.stale(l)
			for b := range bound {
				need = need || (b != name && l.reads(b))
			}
			for c := range chosen {
				need = need || l.reads(c)
			}
			if need {
				chosen[name] = true
				changed = true
			}
		}
	}
	var src strings.Builder
	for _, name := range slices.Sorted(maps.Keys(chosen)) {
		src.WriteString(live[name].d.src)
		src.WriteString("\n")
		delete(st.defs, live[name].fn)
	}
	return src.String()
}

// topLevelBindings returns the names that statements bind at module level.
func topLevelBindings(stmts []syntax.Stmt) map[string]bool {
	bound := map[string]bool{}
	var target func(syntax.Expr)
	target = func(x syntax.Expr) {
		switch x := x.(type) {
		case *syntax.Ident:
			// A comparison constant's name always holds the same
			// object (pyfront.CmpConstPrefix): binding it again
			// changes nothing an earlier function reads.
			if !strings.HasPrefix(x.Name, pyfront.CmpConstPrefix) {
				bound[x.Name] = true
			}
		case *syntax.TupleExpr:
			for _, e := range x.List {
				target(e)
			}
		case *syntax.ListExpr:
			for _, e := range x.List {
				target(e)
			}
		case *syntax.ParenExpr:
			target(x.X)
		}
	}
	var walk func([]syntax.Stmt)
	walk = func(stmts []syntax.Stmt) {
		for _, s := range stmts {
			switch s := s.(type) {
			case *syntax.AssignStmt:
				target(s.LHS)
			case *syntax.DefStmt:
				bound[s.Name.Name] = true
			case *syntax.ForStmt:
				target(s.Vars)
				walk(s.Body)
			case *syntax.WhileStmt:
				walk(s.Body)
			case *syntax.IfStmt:
				walk(s.True)
				walk(s.False)
			case *syntax.LoadStmt:
				for _, id := range s.To {
					bound[id.Name] = true
				}
			}
		}
	}
	walk(stmts)
	return bound
}

// chunk is lowered code ready to run, with the earlier definitions it
// re-creates.
type chunk struct {
	name    string
	code    string
	prog    *pyfront.Program
	prelude string // source of re-created definitions, "" if none
}

// withPrelude prepends the lowered prelude to f. It returns the number of
// statements prepended.
func (c *chunk) withPrelude(f *syntax.File) (int, error) {
	if c.prelude == "" {
		return 0, nil
	}
	p, err := pyfront.Lower(c.name+" (earlier definitions)", c.prelude)
	if err != nil {
		return 0, err
	}
	// go.starlark.net names the top-level code's file after its first
	// statement (nested defs keep their own), so a statement of the step
	// itself must come first for errors to name the step and its lines.
	var first syntax.Position
	if len(f.Stmts) > 0 {
		first, _ = f.Stmts[0].Span()
	}
	stmts := append([]syntax.Stmt{&syntax.BranchStmt{Token: syntax.PASS, TokenPos: first}}, p.File.Stmts...)
	f.Stmts = append(stmts, f.Stmts...)
	return len(stmts), nil
}

// namespace returns the namespace of the state's globals, which the
// views of the global statements use (see core.Namespace).
func (st *state) namespace() *core.Namespace {
	if st.ns == nil {
		st.ns = core.NewNamespace(st.globals)
		st.ns.Protected = func(name string, deleted bool) error {
			if st.protected(name) {
				return core.Errorf(pyexc.SyntaxError, "%s", pyfront.ProtectedMessage(name, deleted))
			}
			return nil
		}
	}
	return st.ns
}

// enterStep starts f with a call of the globals helper, which makes the
// module f runs in the namespace's running step (core.Namespace). It
// returns the number of statements prepended.
func enterStep(f *syntax.File) int {
	if len(f.Stmts) == 0 {
		return 0
	}
	at, _ := f.Stmts[0].Span() // a statement of the step: see withPrelude
	call := &syntax.CallExpr{Fn: &syntax.Ident{NamePos: at, Name: contract.HelperGlobals}, Lparen: at, Rparen: at}
	f.Stmts = append([]syntax.Stmt{&syntax.ExprStmt{X: call}}, f.Stmts...)
	return 1
}

// execChunk runs a chunk in globals. Names the code uses but nothing
// defines become unbound globals, so that reading one raises NameError at
// run time, as in Python.
func (st *state) execChunk(thread *starlark.Thread, c *chunk) outcome {
	f := c.prog.File
	n, err := c.withPrelude(f)
	if err != nil {
		c.prelude, n = "", 0 // cannot re-create them: run without
	}
	n += enterStep(f)
	captureLastExpression(f)
	thread.SetLocal(contract.ExecutorGlobalsKey, st.namespace())
	err = starlark.ExecPythonChunk(f, thread, st.globals)
	names := undefinedNames(err)
	if names != nil {
		// Nothing ran: resolution failed. Declare the names and run again.
		again, lerr := pyfront.Lower(c.name, c.code)
		if lerr != nil {
			return outcome{err: lerr}
		}
		f = again.File
		declareUnbound(f, names)
		n, _ = c.withPrelude(f)
		n += len(names)
		n += enterStep(f)
		captureLastExpression(f)
		err = starlark.ExecPythonChunk(f, thread, st.globals)
	}
	return outcome{file: f, preludeLen: n, chunk: c, unbound: names, err: err}
}

// settle records what a chunk defined, on the goroutine of its execution.
func (st *state) settle(out outcome) {
	if out.file == nil {
		st.namespace().EndStep()
	} else {
		st.namespace().EndStepReading(functionGlobals(out.file))
	}
	delete(st.globals, lastValue)
	if out.file == nil {
		return
	}
	stmts := out.file.Stmts
	st.recordDefinitions(stmts[out.preludeLen:], out.chunk.code, out.unbound)
	if out.chunk.prelude != "" {
		// The prelude's definitions, whose positions are lines of the
		// prelude's source, are recorded again.
		st.recordDefinitions(stmts[:out.preludeLen], out.chunk.prelude, out.unbound)
	}
}

// engineNamePrefix begins the globals the front end and the engine bind
// (helpers, comparison constants, temporaries), which no step can: a
// helper's value never changes, and a temporary belongs to the step that
// assigned it, which a later step's temporary of the same name must not
// overwrite in an earlier step's module.
const engineNamePrefix = "__sa_"

// functionGlobals returns the module globals that the functions f
// creates (defs and lambdas, at any depth, with their defaults; not a
// def's own name, unless its body reads it) refer to, but for the
// engine's own (engineNamePrefix): what they can read of
// the step's module once it has ended that a later step may rebind. f has
// been resolved (a file whose resolution failed ran nothing, and has no
// running step to end).
func functionGlobals(f *syntax.File) (names []string) {
	seen := map[string]bool{}
	// Attribute names and keywords are identifiers with no binding.
	inFunction := func(n syntax.Node) bool {
		if id, isIdent := n.(*syntax.Ident); isIdent {
			if b, resolved := id.Binding.(*resolve.Binding); resolved && b.Scope == resolve.Global && !seen[id.Name] && !strings.HasPrefix(id.Name, engineNamePrefix) {
				seen[id.Name] = true
				names = append(names, id.Name)
			}
		}
		return true
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.DefStmt:
			// Not its name, which the step binds and no function reads
			// unless its body does.
			for _, p := range n.Params {
				syntax.Walk(p, inFunction)
			}
			for _, stmt := range n.Body {
				syntax.Walk(stmt, inFunction)
			}
			return false
		case *syntax.LambdaExpr:
			syntax.Walk(n, inFunction)
			return false
		}
		return true
	})
	return names
}
