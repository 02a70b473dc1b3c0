package pyfront

import (
	"sort"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Lowering of try, raise and the functions try bodies become.
//
//	try:                      def __sa_t1():
//	    B                         B'
//	except T as e:            __sa_t2 = __sa_try(__sa_t1)
//	    H                     if __sa_t2[0] != None:
//	else:                         __sa_t3 = __sa_t2[0]
//	    E                         if __sa_exc_match(__sa_t3, T):
//	                                  e = __sa_t3
//	                                  H
//	                              else:
//	                                  __sa_reraise(__sa_t3)
//	                          else:
//	                              E
//
// Only the body runs inside a function; handlers and the else clause are
// ordinary code, so their return, break and continue are native. With a
// finally clause, the try/except/else part becomes the function and the
// finally clause follows the call, re-raising afterwards. A return,
// break or continue inside a body function makes it return a signal
// ((value,), "b" or "c") that the code after the call acts on; variables
// the body assigns are cells or globals (scope.go). Code without try
// statements is lowered exactly as before: the cost is paid only where
// try is used.

func (l *lowerer) try(n *Try, out []syntax.Stmt) []syntax.Stmt {
	if n.Finally == nil {
		return l.tryExcept(n, out)
	}
	r, c, out := l.closure(n.pos, out, func() []syntax.Stmt {
		if len(n.Handlers) == 0 {
			return l.body(n.Body, n.pos)
		}
		return l.tryExcept(&Try{pos: n.pos, Body: n.Body, Handlers: n.Handlers, Else: n.Else}, nil)
	})
	out = l.stmts(n.Finally, out)
	exc := l.index0(r, 0, n.pos)
	out = append(out, &syntax.IfStmt{
		If:   l.pos(n.pos),
		Cond: l.binary(syntax.NEQ, exc, l.ident("None", n.pos), n.pos),
		True: []syntax.Stmt{&syntax.ExprStmt{X: l.call(contract.HelperReraise, n.pos, l.index0(r, 0, n.pos))}},
	})
	return append(out, l.dispatch(c, r, n.pos)...)
}

// tryExcept lowers a try statement without a finally clause.
func (l *lowerer) tryExcept(n *Try, out []syntax.Stmt) []syntax.Stmt {
	guard := 0
	if catchesImportError(n) {
		guard = 1 // try: import numpy / except ImportError: ...
	}
	r, c, out := l.closure(n.pos, out, func() []syntax.Stmt {
		l.guarded += guard
		defer func() { l.guarded -= guard }()
		return l.body(n.Body, n.pos)
	})
	exc := l.temp()
	caught := []syntax.Stmt{l.assign(l.ident(exc, n.pos), l.index0(r, 0, n.pos), n.pos)}
	var chain *syntax.IfStmt // the last if of the handler chain
	bare := false
	for i, h := range n.Handlers {
		if bare {
			panic(bailout{&Error{Line: int(h.Line), Col: int(h.Col), Msg: "default 'except:' must be last"}})
		}
		var typ syntax.Expr = l.ident("None", h.pos)
		if h.Type != nil {
			typ = l.expr(h.Type)
		} else {
			bare = true
		}
		var body []syntax.Stmt
		if h.Name != "" {
			l.checkName(h.Name, h.pos)
			body = append(body, l.assign(l.name(h.Name, h.pos, true), l.ident(exc, h.pos), h.pos))
		}
		l.handlers = append(l.handlers, exc)
		body = append(body, l.body(h.Body, h.pos)...)
		l.handlers = l.handlers[:len(l.handlers)-1]
		var test *syntax.IfStmt
		if h.Type == nil && i > 0 {
			// A final bare except is the else of the chain.
			chain.ElsePos = l.pos(h.pos)
			chain.False = body
			continue
		}
		test = &syntax.IfStmt{If: l.pos(h.pos), Cond: l.call(contract.HelperExcMatch, h.pos, l.ident(exc, h.pos), typ), True: body}
		if h.Type == nil {
			test.Cond = l.ident("True", h.pos)
		}
		if chain == nil {
			caught = append(caught, test)
		} else {
			chain.ElsePos = l.pos(h.pos)
			chain.False = []syntax.Stmt{test}
		}
		chain = test
	}
	if !bare {
		chain.ElsePos = l.pos(n.pos)
		chain.False = []syntax.Stmt{&syntax.ExprStmt{X: l.call(contract.HelperReraise, n.pos, l.ident(exc, n.pos))}}
	}
	is := &syntax.IfStmt{
		If:   l.pos(n.pos),
		Cond: l.binary(syntax.NEQ, l.index0(r, 0, n.pos), l.ident("None", n.pos), n.pos),
		True: caught,
	}
	normal := l.dispatch(c, r, n.pos)
	normal = l.stmts(n.Else, normal)
	if len(normal) > 0 {
		is.ElsePos = l.pos(n.pos)
		is.False = normal
	}
	return append(out, is)
}

// index0 is r[i] for the temporary r.
func (l *lowerer) index0(r string, i int, at pos) syntax.Expr {
	return &syntax.IndexExpr{X: l.ident(r, at), Lbrack: l.pos(at), Y: l.int(i, at), Rbrack: l.pos(at)}
}

// closure lowers the statements body makes as a function called through
// __sa_try, appending to out. It returns the temporary holding the
// (exception, signal) pair and the closure's scope.
func (l *lowerer) closure(at pos, out []syntax.Stmt, body func() []syntax.Stmt) (string, *scope, []syntax.Stmt) {
	py, _ := l.pyScope()
	if py.kind == scopeClass {
		l.needs(at, "a try statement directly in a class body")
	}
	c := l.newScope(scopeClosure)
	c.atModule = py.kind == scopeModule
	l.scopes = append(l.scopes, c)
	l.loops = append(l.loops, closureMark)
	stmts := body()
	l.loops = l.loops[:len(l.loops)-1]
	l.scopes = l.scopes[:len(l.scopes)-1]
	if c.usesGlobals {
		g := l.assign(l.ident(gview, at), l.call(contract.HelperGlobals, at), at)
		stmts = append([]syntax.Stmt{g}, stmts...)
	}
	fn, r := l.temp(), l.temp()
	out = append(out, &syntax.DefStmt{Def: l.pos(at), Name: l.ident(fn, at), Lparen: l.pos(at), Rparen: l.pos(at), Body: stmts})
	return r, c, append(out, l.callOnce(fn, r, contract.HelperTry, at)...)
}

// callOnce is r = helper(fn). At module level the function is also
// unbound first, so that the engine, which re-creates the module's
// functions in later steps from their source, never sees it as one.
// With helper "", it is r = fn().
func (l *lowerer) callOnce(fn, r, helper string, at pos) []syntax.Stmt {
	call := func(x string) syntax.Expr {
		if helper == "" {
			return &syntax.CallExpr{Fn: l.ident(x, at), Lparen: l.pos(at), Rparen: l.pos(at)}
		}
		return l.call(helper, at, l.ident(x, at))
	}
	if len(l.scopes) > 1 {
		return []syntax.Stmt{l.assign(l.ident(r, at), call(fn), at)}
	}
	return []syntax.Stmt{
		l.assign(l.ident(r, at), l.ident(fn, at), at),
		l.assign(l.ident(fn, at), l.ident("None", at), at),
		l.assign(l.ident(r, at), call(r), at),
	}
}

// dispatch acts on the signal a body function returned: break, continue
// or return in the enclosing code.
func (l *lowerer) dispatch(c *scope, r string, at pos) []syntax.Stmt {
	if !c.sigBreak && !c.sigCont && !c.sigReturn {
		return nil
	}
	sig := l.temp()
	var out []syntax.Stmt
	out = append(out, l.assign(l.ident(sig, at), l.index0(r, 1, at), at))
	var last *syntax.IfStmt
	add := func(cond syntax.Expr, body []syntax.Stmt) {
		is := &syntax.IfStmt{If: l.pos(at), Cond: cond, True: body}
		if last == nil {
			out = append(out, is)
		} else {
			last.ElsePos = l.pos(at)
			last.False = []syntax.Stmt{is}
		}
		last = is
	}
	if c.sigBreak {
		add(l.binary(syntax.EQL, l.ident(sig, at), l.str("b", at), at), l.stmt(&Simple{pos: at, Kind: kwBreak}, nil))
	}
	if c.sigCont {
		add(l.binary(syntax.EQL, l.ident(sig, at), l.str("c", at), at), l.stmt(&Simple{pos: at, Kind: kwContinue}, nil))
	}
	if c.sigReturn {
		var ret syntax.Stmt
		if outer := l.returnClosure(); outer != nil {
			outer.sigReturn = true
			ret = &syntax.ReturnStmt{Return: l.pos(at), Result: l.ident(sig, at)}
		} else {
			ret = &syntax.ReturnStmt{Return: l.pos(at), Result: l.index0(sig, 0, at)}
		}
		add(l.binary(syntax.NEQ, l.ident(sig, at), l.ident("None", at), at), []syntax.Stmt{ret})
	}
	return out
}

// signal lowers a break ("b") or continue ("c") that leaves a body
// function.
func (l *lowerer) signal(out []syntax.Stmt, kind string, at pos) []syntax.Stmt {
	c := l.innerClosure()
	if c == nil {
		panic("pyfront: loop signal outside a try body")
	}
	if kind == "b" {
		c.sigBreak = true
	} else {
		c.sigCont = true
	}
	return append(out, &syntax.ReturnStmt{Return: l.pos(at), Result: l.str(kind, at)})
}

// returnClosure returns the innermost body function a return statement
// here would leave, or nil when it returns from a def.
func (l *lowerer) returnClosure() *scope {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		switch s := l.scopes[i]; s.kind {
		case scopeClosure:
			return s
		case scopeLocal:
			continue
		}
		return nil
	}
	return nil
}

func (l *lowerer) raise(n *Raise, out []syntax.Stmt) []syntax.Stmt {
	if n.Exc == nil {
		if len(l.handlers) == 0 {
			// RuntimeError: No active exception to reraise.
			return append(out, &syntax.ExprStmt{X: l.call(contract.HelperReraise, n.pos, l.ident("None", n.pos))})
		}
		return append(out, &syntax.ExprStmt{X: l.call(contract.HelperReraise, n.pos, l.ident(l.handlers[len(l.handlers)-1], n.pos))})
	}
	x := l.hoist(n.Exc, &out)
	args := []syntax.Expr{l.expr(x)}
	if n.Cause != nil {
		args = append(args, l.expr(n.Cause))
	}
	return append(out, &syntax.ExprStmt{X: l.call(contract.HelperRaise, n.pos, args...)})
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// with lowers a with statement; several items nest, as in Python.
//
//	with M as x:              __sa_t1 = M
//	    B                     __sa_t2 = __sa_with_enter(__sa_t1)
//	                          x = __sa_t2
//	                          def __sa_t3():
//	                              B'
//	                          __sa_t4 = __sa_try(__sa_t3)
//	                          if __sa_t4[0] != None:
//	                              if not __sa_with_exit(__sa_t1, __sa_t4[0]):
//	                                  __sa_reraise(__sa_t4[0])
//	                          else:
//	                              __sa_with_exit(__sa_t1, None)
//	                              (return, break or continue the body signalled)
//
// The body is a try body (a function), so its exception reaches
// __exit__, which may suppress it by returning a true value; __exit__
// runs before a return, break or continue of the body takes effect.
func (l *lowerer) with(n *With, out []syntax.Stmt) []syntax.Stmt {
	if n.Async {
		l.needs(n.pos, "async with")
	}
	return l.withItems(n, n.Items, out)
}

func (l *lowerer) withItems(n *With, items []withItem, out []syntax.Stmt) []syntax.Stmt {
	it := items[0]
	at := n.pos
	if py, _ := l.pyScope(); py.kind == scopeClass {
		l.needs(at, "a with statement directly in a class body")
	}
	mgr := l.temp()
	out = append(out, l.assign(l.ident(mgr, at), l.expr(l.hoist(it.Ctx, &out)), at))
	entered := l.call(contract.HelperWithEnter, at, l.ident(mgr, at))
	if it.Var != nil {
		v := l.temp()
		out = append(out, l.assign(l.ident(v, at), entered, at))
		out = l.assignTo(it.Var, l.ident(v, at), at, out)
	} else {
		out = append(out, l.exprStmt(entered))
	}
	r, c, out := l.closure(at, out, func() []syntax.Stmt {
		if len(items) > 1 {
			return l.withItems(n, items[1:], nil)
		}
		return l.body(n.Body, at)
	})
	exc := l.index0(r, 0, at)
	suppressed := &syntax.UnaryExpr{OpPos: l.pos(at), Op: syntax.NOT, X: l.call(contract.HelperWithExit, at, l.ident(mgr, at), l.index0(r, 0, at))}
	normal := []syntax.Stmt{l.exprStmt(l.call(contract.HelperWithExit, at, l.ident(mgr, at), l.ident("None", at)))}
	normal = append(normal, l.dispatch(c, r, at)...)
	return append(out, &syntax.IfStmt{
		If:   l.pos(at),
		Cond: l.binary(syntax.NEQ, exc, l.ident("None", at), at),
		True: []syntax.Stmt{&syntax.IfStmt{
			If:   l.pos(at),
			Cond: suppressed,
			True: []syntax.Stmt{&syntax.ExprStmt{X: l.call(contract.HelperReraise, at, l.index0(r, 0, at))}},
		}},
		ElsePos: l.pos(at),
		False:   normal,
	})
}
