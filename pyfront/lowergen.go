package pyfront

import (
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Lowering of generators, generator expressions, the loops that consume
// them, and assignment expressions in comprehensions.
//
// A generator function keeps its signature; its body moves into a nested
// function that builtins runs on a thread of its own when the generator
// is first resumed (builtins/generator.go):
//
//	def f(a, *b):             def f(a, *b):
//	    x = yield a               def __sa_t1(a, b):
//	                                  x = __sa_yield(a)
//	                              return __sa_generator("f", __sa_t1, a, b)
//
// A generator expression needs no thread: each for clause becomes a
// function of the loop variables so far, which a state machine in
// builtins calls on the consumer's thread. The first iterable is
// evaluated where the expression is, as in Python:
//
//	(e for x in xs if c)  becomes  __sa_genexpr(xs, lambda x: (e,) if c else ())
//
// go.starlark.net's loops cannot receive an exception from an iterator:
// loops over what may be one iterate __sa_loop(x), which keeps the
// exception, and __sa_loop_check() raises it right after the loop.

// inGenerator reports whether a yield here belongs to the generator
// function being lowered (not to a lambda or comprehension in it).
func (l *lowerer) inGenerator() bool {
	py, _ := l.pyScope()
	return py != nil && py.kind == scopeFunc && py.generator
}

func (l *lowerer) yield(n *Yield) syntax.Expr {
	if !l.inGenerator() {
		if py, _ := l.pyScope(); py != nil && py.comp {
			panic(bailout{&Error{Line: int(n.Line), Col: int(n.Col), Msg: "'yield' inside a comprehension"}})
		}
		l.needs(n.pos, "yield in a lambda")
	}
	if n.From {
		return l.call(contract.HelperYieldFrom, n.pos, l.expr(n.X))
	}
	if n.X == nil {
		return l.call(contract.HelperYield, n.pos)
	}
	return l.call(contract.HelperYield, n.pos, l.expr(n.X))
}

// generatorBody turns the lowered body of generator function n into the
// definition of its body function and the return of the generator.
func (l *lowerer) generatorBody(n *FuncDef, body []syntax.Stmt) []syntax.Stmt {
	inner := l.temp()
	var params, args []syntax.Expr
	for _, p := range n.Params {
		if p.Name == "" || p.Kind == paramSlash {
			continue
		}
		params = append(params, l.ident(p.Name, p.pos))
		args = append(args, l.ident(p.Name, p.pos))
	}
	def := &syntax.DefStmt{
		Def:    l.pos(n.pos),
		Name:   l.ident(inner, n.pos),
		Lparen: l.pos(n.pos),
		Params: params,
		Rparen: l.pos(n.pos),
		Body:   body,
	}
	args = append([]syntax.Expr{l.str(n.Name, n.pos), l.ident(inner, n.pos)}, args...)
	ret := &syntax.ReturnStmt{Return: l.pos(n.pos), Result: l.call(contract.HelperGenerator, n.pos, args...)}
	return []syntax.Stmt{def, ret}
}

// suspends reports whether a generator can be suspended while running
// body: it yields, other than in a nested function.
func (l *lowerer) suspends(body []Stmt) bool {
	if !l.inGenerator() {
		return false
	}
	_, ok := findYield(body)
	return ok
}

// fresh reports expressions whose value is a new list or range that no
// other code can change while a loop over it is suspended.
func fresh(x Expr) bool {
	switch n := unparen(x).(type) {
	case *Seq:
		return n.Kind != tLBRACE
	case *Comp:
		return n.Kind == tLBRACK
	case *Call:
		if f, ok := n.Fn.(*Name); ok {
			switch f.ID {
			case "range", "sorted", "list", "tuple":
				return true
			}
		}
	}
	return false
}

// loopOperand lowers the operand of a for loop or comprehension clause,
// and reports whether the loop needs __sa_loop_check after it. A loop a
// generator can be suspended in (free) does not hold go.starlark.net's
// iteration lock on a list or dict that other code may change meanwhile.
func (l *lowerer) loopOperand(x Expr, free bool) (syntax.Expr, bool) {
	if listy(x) && (!free || fresh(x)) {
		return l.expr(x), false
	}
	args := []syntax.Expr{l.expr(x)}
	if free {
		args = append(args, l.ident("True", x.at()))
	}
	return l.call(contract.HelperLoop, x.at(), args...), true
}

// loopCheck is the statement after a loop over __sa_loop.
func (l *lowerer) loopCheck(at pos) syntax.Stmt {
	// An if statement, not an expression statement: a loop at the end of
	// the module must leave no value.
	return &syntax.IfStmt{
		If:   l.pos(at),
		Cond: l.call(contract.HelperLoopCheck, at),
		True: []syntax.Stmt{&syntax.BranchStmt{Token: syntax.PASS, TokenPos: l.pos(at)}},
	}
}

// star lowers the operand of *x in a call, a display or a starred
// assignment: its items, collected so that an exception raised by an
// iterator propagates.
func (l *lowerer) star(x Expr) syntax.Expr {
	if listy(x) {
		return l.expr(x)
	}
	return l.call(contract.HelperStar, x.at(), l.expr(x))
}

// genexpr lowers a generator expression (see the file comment).
func (l *lowerer) genexpr(n *Comp) syntax.Expr {
	first := l.expr(n.Clauses[0].Iter)
	cs := l.newScope(scopeLocal)
	cs.comp = true
	l.scopes = append(l.scopes, cs)
	loops := l.loops
	l.loops = nil
	defer func() {
		l.scopes = l.scopes[:len(l.scopes)-1]
		l.loops = loops
	}()
	args := []syntax.Expr{first}
	for k, cl := range n.Clauses {
		if cl.Async {
			l.needs(cl.pos, "async comprehensions")
		}
		if hasStar(cl.Target) {
			l.needs(cl.pos, "a starred target in a comprehension")
		}
		bindTargets(cl.Target, cs.names)
		result := n.Elt
		if k < len(n.Clauses)-1 {
			result = n.Clauses[k+1].Iter
		}
		args = append(args, l.clauseFunc(n.Clauses[:k+1], result))
	}
	return l.call(contract.HelperGenexpr, n.pos, args...)
}

// clauseFunc is the function of the last of clauses: given the values of
// their loop variables, () if its conditions filter them out, else
// (result,).
func (l *lowerer) clauseFunc(clauses []clause, result Expr) syntax.Expr {
	last := clauses[len(clauses)-1]
	at := last.pos
	var params []syntax.Expr
	var unpack []syntax.Node // for clauses binding targets that are not plain names
	seen := map[string]bool{}
	for i, cl := range clauses {
		if nm, ok := unparen(cl.Target).(*Name); ok && !seen[nm.ID] {
			l.checkName(nm.ID, nm.pos)
			seen[nm.ID] = true
			params = append(params, l.ident(nm.ID, nm.pos))
			continue
		}
		p := "__sa_g" + itoa(i+1)
		params = append(params, l.ident(p, cl.pos))
		one := &syntax.TupleExpr{Lparen: l.pos(cl.pos), List: []syntax.Expr{l.ident(p, cl.pos)}, Rparen: l.pos(cl.pos)}
		unpack = append(unpack, &syntax.ForClause{For: l.pos(cl.pos), Vars: l.target(cl.Target), In: l.pos(cl.pos), X: one})
	}
	var body syntax.Expr
	if len(unpack) > 0 {
		c := &syntax.Comprehension{Lbrack: l.pos(at), Clauses: unpack, Rbrack: l.pos(at)}
		for _, cond := range last.Ifs {
			c.Clauses = append(c.Clauses, &syntax.IfClause{If: l.pos(cond.at()), Cond: l.expr(cond)})
		}
		c.Body = l.expr(result)
		body = c
	} else {
		one := &syntax.TupleExpr{Lparen: l.pos(at), List: []syntax.Expr{l.expr(result)}, Rparen: l.pos(at)}
		if len(last.Ifs) == 0 {
			body = one
		} else {
			cond := l.expr(last.Ifs[0])
			for _, c := range last.Ifs[1:] {
				cond = l.binary(syntax.AND, cond, l.expr(c), c.at())
			}
			// The condition is lowered before the result: Python
			// evaluates it first.
			body = &syntax.CondExpr{If: l.pos(at), Cond: cond, True: one, ElsePos: l.pos(at),
				False: &syntax.TupleExpr{Lparen: l.pos(at), Rparen: l.pos(at)}}
		}
	}
	return &syntax.ParenExpr{Lparen: l.pos(at), X: &syntax.LambdaExpr{Lambda: l.pos(at), Params: params, Body: body}, Rparen: l.pos(at)}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// namedInComp lowers x := v inside a comprehension or generator
// expression, where Python binds x in the enclosing function or module.
func (l *lowerer) namedInComp(n *NamedExpr) syntax.Expr {
	l.checkName(n.Target.ID, n.Target.pos)
	inComp := false
	for i := len(l.scopes) - 1; i >= 0; i-- {
		s := l.scopes[i]
		switch s.kind {
		case scopeClosure:
			continue
		case scopeLocal:
			if !s.comp {
				l.needs(n.pos, "an assignment expression (:=) in a lambda")
			}
			if s.names[n.Target.ID] {
				panic(bailout{&Error{Line: int(n.Line), Col: int(n.Col), Msg: "assignment expression cannot rebind comprehension iteration variable '" + n.Target.ID + "'"}})
			}
			inComp = true
			continue
		case scopeClass:
			if inComp {
				panic(bailout{&Error{Line: int(n.Line), Col: int(n.Col), Msg: "assignment expression within a comprehension cannot be used in a class body"}})
			}
		}
		break
	}
	if !inComp {
		l.needs(n.pos, "an assignment expression (:=) in this position")
	}
	v := l.expr(n.Value)
	ref := l.nameOutside(n.Target.ID, n.Target.pos)
	if d, ok := ref.(*syntax.DotExpr); ok {
		return l.call(contract.HelperSetVar, n.pos, d.X, l.str(d.Name.Name, n.pos), v)
	}
	l.needs(n.pos, "an assignment expression (:=) in a comprehension here")
	return nil
}

// nameOutside is the store reference of a variable of the function or
// module around the comprehensions being lowered: a cell's .v, or the
// module's globals view.
func (l *lowerer) nameOutside(id string, at pos) syntax.Expr {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		s := l.scopes[i]
		switch s.kind {
		case scopeFunc:
			if s.globals[id] {
				s.usesG = true
				l.scopes[0].gdecl[id] = true
				return l.dot(l.ident(gview, at), id, at)
			}
			if s.cells[id] {
				return l.dot(l.ident(cellName(id), at), "v", at)
			}
			return nil
		case scopeModule:
			s.gdecl[id] = true
			return l.dot(l.call(contract.HelperGlobals, at), id, at)
		}
	}
	return nil
}

// compWalrusTargets adds to out the names assignment expressions inside
// comprehensions in body bind: its function keeps them in cells, which
// the comprehension assigns.
func compWalrusTargets(body []Stmt, out map[string]bool) {
	walkStmts(body, func(x Expr) {
		if c, ok := x.(*Comp); ok {
			walkExpr(c, func(y Expr) {
				if w, ok := y.(*NamedExpr); ok {
					out[w.Target.ID] = true
				}
			})
		}
	}, nil)
}

// cleanupYield finds a yield that code runs after when its generator is
// closed: inside a try statement with a finally clause, or whose handler
// catches GeneratorExit. CPython runs that code as soon as an abandoned
// generator is collected, at a moment this engine cannot reproduce, so
// such generators need full Python. inCleanup says an enclosing try
// statement already does.
func cleanupYield(body []Stmt, inCleanup bool) (pos, bool) {
	check := func(xs ...Expr) (pos, bool) {
		if !inCleanup {
			return pos{}, false
		}
		var found *pos
		for _, x := range xs {
			walkExpr(x, func(y Expr) {
				if n, ok := y.(*Yield); ok && found == nil {
					found = &n.pos
				}
			})
		}
		if found != nil {
			return *found, true
		}
		return pos{}, false
	}
	for _, s := range body {
		var at pos
		var ok bool
		switch n := s.(type) {
		case *If:
			if at, ok = check(n.Cond); !ok {
				if at, ok = cleanupYield(n.Body, inCleanup); !ok {
					at, ok = cleanupYield(n.Else, inCleanup)
				}
			}
		case *For:
			if at, ok = check(n.Iter); !ok {
				if at, ok = cleanupYield(n.Body, inCleanup); !ok {
					at, ok = cleanupYield(n.Else, inCleanup)
				}
			}
		case *While:
			if at, ok = check(n.Cond); !ok {
				if at, ok = cleanupYield(n.Body, inCleanup); !ok {
					at, ok = cleanupYield(n.Else, inCleanup)
				}
			}
		case *Try:
			finally := inCleanup || n.Finally != nil
			catches := finally
			for _, h := range n.Handlers {
				catches = catches || catchesExit(h.Type)
			}
			if at, ok = cleanupYield(n.Body, catches); ok {
				break
			}
			for _, h := range n.Handlers {
				if at, ok = cleanupYield(h.Body, finally); ok {
					break
				}
			}
			if !ok {
				if at, ok = cleanupYield(n.Else, finally); !ok {
					at, ok = cleanupYield(n.Finally, inCleanup)
				}
			}
		case *With:
			// __exit__ is a cleanup, as a finally clause is.
			at, ok = cleanupYield(n.Body, true)
		case *FuncDef, *ClassDef:
			// Their bodies are other functions.
		default:
			if inCleanup {
				at, ok = findYield([]Stmt{s})
			}
		}
		if ok {
			return at, true
		}
	}
	return pos{}, false
}

// catchesExit reports whether an except clause's type catches
// GeneratorExit.
func catchesExit(t Expr) bool {
	switch n := unparen(t).(type) {
	case nil:
		return true
	case *Name:
		return n.ID == "BaseException" || n.ID == "GeneratorExit"
	case *Seq:
		for _, e := range n.Elts {
			if catchesExit(e) {
				return true
			}
		}
	}
	return false
}
