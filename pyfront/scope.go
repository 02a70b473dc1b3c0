package pyfront

import (
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Scopes. Python resolves a name to the innermost function (or the
// module) that binds it, skipping class bodies; Starlark resolves it the
// same way except that nested functions cannot assign a variable of an
// enclosing one, and the front end introduces functions Python does not
// have (try bodies, class bodies). The lowerer therefore keeps Python's
// scope chain and decides, for each name, how the lowered code reaches
// the variable Python would use:
//
//   - natively, when Starlark's own resolution finds the same variable;
//   - through a cell (__sa_c_x.v) when the variable belongs to a function
//     and a try body of that function assigns it;
//   - through the module's globals view (__sa_g.x) when a try body at
//     module level assigns a global;
//   - through __sa_globals().x when a method reads a global that its
//     class body also binds (which Starlark would resolve to the class
//     body's variable).

type scopeKind uint8

const (
	scopeModule  scopeKind = iota
	scopeFunc              // a def (or method)
	scopeClass             // a class body (lowered to a function)
	scopeLocal             // a lambda or comprehension: its parameters or targets
	scopeClosure           // a lowered try body: not a Python scope
)

type scope struct {
	kind  scopeKind
	names map[string]bool // names the scope binds (Python's locals)
	cells map[string]bool // scopeFunc: locals held in cells

	// scopeFunc: names declared global, and whether the function
	// assigns one (through __sa_g, its module's globals view).
	globals map[string]bool
	usesG   bool

	// scopeModule: names assigned through the globals view, which the
	// module must declare so that they have a slot.
	gdecl map[string]bool

	// scopeClosure.
	usesGlobals bool            // stores module globals through __sa_g
	defs        map[string]bool // at module level: names a def in it binds
	sigBreak    bool            // a break leaves it
	sigCont     bool            // a continue leaves it
	sigReturn   bool            // a return leaves it
	atModule    bool            // belongs directly to the module

	// scopeClass.
	classCell string // temp holding the class's __class__ cell
	className string

	// scopeFunc: the first parameter, for super().
	self string

	// scopeFunc: a generator function (its body yields).
	generator bool
	// scopeFunc: the locals that only ever hold ints or floats, never
	// bools (numericNames).
	numeric map[string]bool
	// scopeFunc: the locals that only ever hold ints (intNames).
	ints map[string]bool
	// scopeLocal: a comprehension or generator expression, not a lambda.
	comp bool
}

// newScope returns an empty scope. Scopes live no longer than the
// lowering, so they come from the arena, which empties them for the next
// lowering when it goes back to the pool.
func (l *lowerer) newScope(kind scopeKind) *scope {
	a := l.a
	if a.nscopes == len(a.scopes) {
		a.scopes = append(a.scopes, &scope{names: map[string]bool{}})
	}
	s := a.scopes[a.nscopes]
	a.nscopes++
	s.kind = kind
	return s
}

// resetScopes empties the scopes a lowering used, keeping their names
// maps.
func (a *arena) resetScopes() {
	for _, s := range a.scopes[:a.nscopes] {
		names := s.names
		if names == nil {
			names = map[string]bool{}
		}
		clear(names)
		*s = scope{names: names}
	}
	a.nscopes = 0
}

func cellName(name string) string { return "__sa_c_" + name }

// addCell keeps a local of a function in a cell.
func (s *scope) addCell(name string) {
	if s.cells == nil {
		s.cells = map[string]bool{}
	}
	s.cells[name] = true
}

// gview is the local that holds the module's globals view in a closure.
const gview = "__sa_g"

// pyScope returns the innermost scope that is a Python scope (not a
// closure), and the innermost closure above it, if any.
func (l *lowerer) pyScope() (*scope, *scope) {
	var closure *scope
	for i := len(l.scopes) - 1; i >= 0; i-- {
		s := l.scopes[i]
		if s.kind == scopeClosure {
			if closure == nil {
				closure = s
			}
			continue
		}
		return s, closure
	}
	return nil, closure
}

// innerClosure returns the innermost closure if no Python function or
// lambda lies between it and the current position.
func (l *lowerer) innerClosure() *scope {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		s := l.scopes[i]
		switch s.kind {
		case scopeClosure:
			return s
		case scopeLocal:
			continue
		}
		return nil
	}
	return nil
}

// name lowers a use of a Python variable: a load, or a store target.
func (l *lowerer) name(id string, at pos, store bool) syntax.Expr {
	collided := false
	crossed := false // a function, lambda, comprehension or class body lies between
	var closure *scope
	for i := len(l.scopes) - 1; i >= 0; i-- {
		s := l.scopes[i]
		switch s.kind {
		case scopeClosure:
			if closure == nil {
				closure = s
			}
			if s.atModule && store && s.defs[id] {
				l.needs(at, "assigning "+id+", which a def in the same try statement at module level binds,")
			}
			continue
		case scopeLocal:
			if s.names[id] {
				return l.ident(id, at)
			}
			crossed = true
			continue
		case scopeClass:
			if s.names[id] {
				if l.isInnermostPy(i) {
					return l.ident(id, at)
				}
				// A method reading a name its class body binds: Python
				// skips the class body, Starlark would not.
				collided = true
			}
			crossed = true
			continue
		case scopeFunc:
			if s.globals[id] {
				if store || l.boundBetween(i, id) {
					s.usesG = true
					l.scopes[0].gdecl[id] = true
					return l.dot(l.ident(gview, at), id, at)
				}
				return l.ident(id, at)
			}
			if s.names[id] {
				if s.cells[id] {
					if crossed && !store {
						// A free variable: unbound, it is a NameError.
						return l.dot(l.ident(cellName(id), at), "free", at)
					}
					return l.dot(l.ident(cellName(id), at), "v", at)
				}
				if collided {
					l.needs(at, "a method reading "+id+", which both its class body and the enclosing function bind,")
				}
				if closure != nil && store {
					panic("pyfront: store to a local that is not a cell, from a try body")
				}
				return l.ident(id, at)
			}
			crossed = true
			continue
		case scopeModule:
			if store && closure != nil {
				closure.usesGlobals = true
				s.gdecl[id] = true
				return l.dot(l.ident(gview, at), id, at)
			}
			if collided {
				return l.dot(l.call(contract.HelperGlobals, at), id, at)
			}
			return l.ident(id, at)
		}
	}
	return l.ident(id, at)
}

// boundBetween reports whether a function or class scope enclosing
// scope i (below it, above the module) binds id, which Starlark would
// resolve id to.
func (l *lowerer) boundBetween(i int, id string) bool {
	for j := i - 1; j > 0; j-- {
		if s := l.scopes[j]; (s.kind == scopeFunc || s.kind == scopeClass) && s.names[id] {
			return true
		}
	}
	return false
}

// isInnermostPy reports whether scope i is the innermost Python scope.
func (l *lowerer) isInnermostPy(i int) bool {
	for j := len(l.scopes) - 1; j > i; j-- {
		if l.scopes[j].kind != scopeClosure {
			return false
		}
	}
	return true
}

func (l *lowerer) dot(x syntax.Expr, name string, at pos) *syntax.DotExpr {
	return &syntax.DotExpr{X: x, Dot: l.pos(at), NamePos: l.pos(at), Name: l.ident(name, at)}
}

// functionLocals returns the names a function body binds, parameters
// included, minus those declared global or nonlocal; walrus says the
// module has assignment expressions.
func functionLocals(params []Param, body []Stmt, walrus bool) map[string]bool {
	names := map[string]bool{}
	for _, p := range params {
		if p.Name != "" {
			names[p.Name] = true
		}
	}
	declared := map[string]bool{}
	bindings(body, names, declared, walrus)
	for n := range declared {
		delete(names, n)
	}
	return names
}

// bindings adds to names every name the statements bind in their own
// scope (not in nested functions, classes, lambdas or comprehensions,
// except for assignment expressions, which bind in the enclosing
// function), and to declared the global and nonlocal names. Without
// walrus (no assignment expression in the module) it visits no
// expression.
func bindings(body []Stmt, names, declared map[string]bool, walrus bool) {
	var fx func(Expr)
	if walrus {
		fx = func(x Expr) {
			if w, ok := x.(*NamedExpr); ok {
				names[w.Target.ID] = true
			}
		}
	}
	walkStmts(body, fx, func(s Stmt) {
		switch n := s.(type) {
		case *Global:
			for _, name := range n.Names {
				declared[name] = true
			}
		case *Assign:
			for _, t := range n.Targets {
				bindTargets(t, names)
			}
		case *AugAssign:
			bindTargets(n.Target, names)
		case *AnnAssign:
			bindTargets(n.Target, names)
		case *For:
			bindTargets(n.Target, names)
		case *FuncDef:
			names[n.Name] = true
		case *ClassDef:
			names[n.Name] = true
		case *ImportStmt:
			for _, a := range n.Names {
				names[importBinding(a)] = true
			}
		case *ImportFrom:
			for _, a := range n.Names {
				if a.As != "" {
					names[a.As] = true
				} else {
					names[a.Name] = true
				}
			}
		case *Del:
			for _, t := range n.Targets {
				bindTargets(t, names)
			}
		case *With:
			for _, it := range n.Items {
				if it.Var != nil {
					bindTargets(it.Var, names)
				}
			}
		case *Try:
			for _, h := range n.Handlers {
				if h.Name != "" {
					names[h.Name] = true
				}
			}
		}
	})
}

// closureBindings adds to out the names bound inside the parts of try
// statements in body that are lowered to nested functions: every try
// body, and with a finally clause also the handlers and the else clause.
// walrus is as for bindings.
func closureBindings(body []Stmt, out map[string]bool, walrus bool) {
	declared := map[string]bool{}
	walkStmts(body, nil, func(s Stmt) {
		if w, ok := s.(*With); ok {
			bindings(w.Body, out, declared, walrus) // a try body too
			return
		}
		t, ok := s.(*Try)
		if !ok {
			return
		}
		bindings(t.Body, out, declared, walrus)
		if t.Finally != nil {
			for _, h := range t.Handlers {
				if h.Name != "" {
					out[h.Name] = true
				}
				bindings(h.Body, out, declared, walrus)
			}
			bindings(t.Else, out, declared, walrus)
		}
	})
}

// declaredNames returns the names a function body declares global (or,
// with nonlocal set, nonlocal).
func declaredNames(body []Stmt, nonlocal bool) map[string]bool {
	out := map[string]bool{}
	walkStmts(body, nil, func(s Stmt) {
		if g, ok := s.(*Global); ok && g.Nonlocal == nonlocal {
			for _, n := range g.Names {
				out[n] = true
			}
		}
	})
	return out
}

// nestedNonlocals adds to out the names functions nested in body, at
// any depth, declare nonlocal: the enclosing function that binds one must
// keep it in a cell, which the nested function assigns.
func nestedNonlocals(body []Stmt, out map[string]bool) {
	var visit func([]Stmt)
	visit = func(stmts []Stmt) {
		walkStmts(stmts, nil, func(s Stmt) {
			switch n := s.(type) {
			case *FuncDef:
				for name := range declaredNames(n.Body, true) {
					out[name] = true
				}
				visit(n.Body)
			case *ClassDef:
				visit(n.Body)
			}
		})
	}
	visit(body)
}

// checkDeclarations refuses nonlocal declarations that no enclosing
// function binds, as CPython's compiler does. It runs before the
// function's own scope is pushed.
func (l *lowerer) checkDeclarations(body []Stmt) {
	walkStmts(body, nil, func(s Stmt) {
		g, ok := s.(*Global)
		if !ok || !g.Nonlocal {
			return
		}
		for _, name := range g.Names {
			found := false
			for i := len(l.scopes) - 1; i > 0 && !found; i-- {
				sc := l.scopes[i]
				found = sc.kind == scopeFunc && sc.names[name]
			}
			if !found {
				panic(bailout{&Error{Line: int(g.Line), Col: int(g.Col), Msg: "no binding for nonlocal '" + name + "' found"}})
			}
		}
	})
}

// lateFreeReads adds to out the locals of a function (params, body,
// locals) that a function or lambda nested in it reads before the body
// has surely bound them: read from a def or lambda that an earlier
// statement of the body does not already follow a binding of. Held in
// cells, they fail as Python's free variables do when still unbound
// ("cannot access free variable"), where Starlark's own closures would
// report an unbound local.
func lateFreeReads(params []Param, body []Stmt, locals map[string]bool, walrus bool, out map[string]bool) {
	bound := map[string]bool{}
	for _, p := range params {
		bound[p.Name] = true
	}
	check := func(reads map[string]bool, self string) {
		for r := range reads {
			if locals[r] && !bound[r] && r != self {
				out[r] = true
			}
		}
	}
	fx := func(x Expr) {
		if lam, ok := x.(*Lambda); ok {
			reads := map[string]bool{}
			namesRead(nil, lam.Body, reads)
			for _, p := range lam.Params {
				delete(reads, p.Name)
			}
			check(reads, "")
		}
	}
	for _, s := range body {
		walkStmts([]Stmt{s}, fx, func(st Stmt) {
			if fd, ok := st.(*FuncDef); ok {
				reads := map[string]bool{}
				namesRead(fd.Body, nil, reads)
				for name := range functionLocals(fd.Params, fd.Body, walrus) {
					delete(reads, name)
				}
				check(reads, fd.Name)
			}
		})
		switch st := s.(type) {
		case *Assign:
			for _, t := range st.Targets {
				bindTargets(t, bound)
			}
		case *AnnAssign:
			if st.Value != nil {
				bindTargets(st.Target, bound)
			}
		case *FuncDef:
			bound[st.Name] = true
		case *ClassDef:
			bound[st.Name] = true
		case *ImportStmt, *ImportFrom:
			bindings([]Stmt{s}, bound, map[string]bool{}, false)
		}
	}
}

// namesRead adds to out every name the statements body and the expression
// x mention, in nested functions and lambdas too.
func namesRead(body []Stmt, x Expr, out map[string]bool) {
	var fx func(Expr)
	fx = func(e Expr) {
		switch n := e.(type) {
		case *Name:
			out[n.ID] = true
		case *Lambda:
			walkExpr(n.Body, fx)
		}
	}
	walkStmts(body, fx, func(s Stmt) {
		switch n := s.(type) {
		case *FuncDef:
			namesRead(n.Body, nil, out)
		case *ClassDef:
			namesRead(n.Body, nil, out)
		}
	})
	walkExpr(x, fx)
}

// deletedNames adds to out the names del statements in body delete.
func deletedNames(body []Stmt, out map[string]bool) {
	walkStmts(body, nil, func(s Stmt) {
		if d, ok := s.(*Del); ok {
			for _, t := range d.Targets {
				bindTargets(t, out)
			}
		}
	})
}
