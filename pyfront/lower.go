package pyfront

import (
	"strconv"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Lowering maps the Python tree onto go.starlark.net's syntax tree. Where
// the languages agree the mapping is one to one; where they differ it
// calls a runtime helper (builtins/helpers.go) or rewrites the statement
// with temporaries named "__sa_*", which user code cannot name because
// identifiers beginning with "__" are refused.

// Runtime helpers the builtins engineer adds next to those of helpers.go.
const (
	helperIs = "__sa_is"
)

type lowerer struct {
	file    *string
	ntemp   int
	loops   []string // per enclosing loop: the flag a break must set, or ""; closureMark at a try body
	imports []Import
	// deferred are the guarded imports, and guarded counts the if
	// statements and try bodies catching ImportError around the
	// current position (addImport).
	deferred []Import
	guarded  int
	scopes   []*scope // Python's scope chain at the current position (scope.go)
	// handlers holds, per enclosing except clause of the current
	// function, the temporary holding its exception (for a bare raise).
	handlers []string
	// own holds the names the program binds and bound reports those
	// earlier steps bound (nil for none): their builtins are not
	// trusted by numeric inference (numeric.go).
	own   map[string]bool
	bound func(name string) bool
	// a is the parse's arena, whose scratch memory the lowering uses.
	a *arena
	// consts are the bindings of the comparison constants the module
	// uses, for its prologue (cmpConst).
	consts []syntax.Stmt

	leafSlabs
	nodeSlabs
}

// leafSlabs hand out the lowered nodes that refer to no other node.
type leafSlabs struct {
	idents   slab[syntax.Ident]
	literals slab[syntax.Literal]
}

// nodeSlabs hand out the other lowered nodes of the commonest types, and
// the lists of expressions and statements.
type nodeSlabs struct {
	calls     slab[syntax.CallExpr]
	binaries  slab[syntax.BinaryExpr]
	assigns   slab[syntax.AssignStmt]
	exprStmts slab[syntax.ExprStmt]
	indexes   slab[syntax.IndexExpr]
	dicts     slab[syntax.DictExpr]
	entries   slab[syntax.DictEntry]
	exprs     slab[syntax.Expr]
	stmtLists slab[syntax.Stmt]
}

// reset readies a lowerer that the arena keeps for the next lowering:
// its stacks stay, emptied; all else, the imports the program it made
// refers to included, goes.
func (l *lowerer) reset() {
	clear(l.scopes[:cap(l.scopes)])
	clear(l.loops[:cap(l.loops)])
	clear(l.handlers[:cap(l.handlers)])
	clear(l.consts[:cap(l.consts)])
	*l = lowerer{scopes: l.scopes[:0], loops: l.loops[:0], handlers: l.handlers[:0], consts: l.consts[:0]}
}

// shadowed reports a name the program or an earlier step binds.
func (l *lowerer) shadowed(name string) bool {
	return l.own[name] || l.bound != nil && l.bound(name)
}

// closureMark in loops marks the boundary of a try body lowered to a
// function: a break or continue beyond it becomes a signal.
const closureMark = "\x00closure"

// module lowers a parsed module.
func (l *lowerer) module(stmts []Stmt) (out []syntax.Stmt, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			err = b.err
		}
	}()
	mod := l.newScope(scopeModule)
	mod.gdecl = map[string]bool{}
	l.scopes = append(l.scopes[:0], mod)
	// body[0] is for the prologue.
	body := make([]syntax.Stmt, 1, len(stmts)+3)
	if l.a.has.inplace {
		body = append(body, l.assign(l.ident(inplaceMarker, pos{Line: 1, Col: 1}), l.ident("True", pos{Line: 1, Col: 1}), pos{Line: 1, Col: 1}))
	}
	body = l.stmts(stmts, body)
	return l.prologue(mod, stmts, body), nil
}

// prologue prepends to a lowered module the call that records its thread
// (builtins.HelperEnter), the bindings of its comparison constants
// (cmpConst) and the declarations of the globals that try bodies assign
// through the globals view: "if False: x = None" gives x a slot in the
// module without running anything.
// The module's statements are body[1:]; body[0] is free for the call.
func (l *lowerer) prologue(mod *scope, stmts []Stmt, body []syntax.Stmt) []syntax.Stmt {
	at := pos{Line: 1, Col: 1}
	if len(stmts) > 0 {
		at = stmts[0].at()
	}
	enter := l.exprStmt(l.call(contract.HelperEnter, at, l.ident(contract.HelperBox, at)))
	if len(mod.gdecl) == 0 && len(l.consts) == 0 {
		body[0] = enter
		return body
	}
	pre := make([]syntax.Stmt, 0, len(mod.gdecl)+len(l.consts)+len(body))
	pre = append(pre, enter)
	pre = append(pre, l.consts...)
	for _, name := range sortedKeys(mod.gdecl) {
		pre = append(pre, &syntax.IfStmt{
			If:   l.pos(at),
			Cond: l.ident("False", at),
			True: []syntax.Stmt{l.assign(l.ident(name, at), l.ident("None", at), at)},
		})
	}
	return append(pre, body[1:]...)
}

// ---- helpers ----

func (l *lowerer) pos(at pos) syntax.Position {
	return syntax.MakePosition(l.file, at.Line, at.Col)
}

// slab hands out the nodes of one type from shared blocks: the lowered
// tree is built and dropped as a whole, and one allocation per block
// instead of per node is most of the front end's speed.
//
// What a lowering leaves of the last blocks of leaves goes back to the
// pool with the arena, for the next lowering: those nodes were never
// handed out, so the trees that share a block share no node, and a tree
// kept alive keeps alive with its blocks no more than some leaves of
// other trees. Blocks of nodes that refer to nodes are not shared so: a
// block would keep alive the tree of the lowering before, whose blocks
// keep alive the one before it, and so on.
type slab[T any] struct {
	free  []T // what is left of the last block
	size  int // the size of the last block that grew by doubling
	first int // the size of the first block, if estimated (sizeSlabs)
}

// Blocks start small, as most programs are, and double up to a limit.
const (
	slabFirst = 8
	slabMax   = 64
)

// grow replaces the slab's block with one of at least n elements.
func (s *slab[T]) grow(n int) {
	size := s.first
	if size > 0 {
		s.first = 0
	} else {
		s.size = min(max(2*s.size, slabFirst), slabMax)
		size = s.size
	}
	s.free = make([]T, max(size, n))
}

// sizeSlabs estimates from the module's token count how many nodes of
// each type the lowering makes, so that the first block holds them,
// more often than not, with little to spare: the ratios (per 1000
// tokens) are those that left the least unused over the conformance
// corpus (executors/starlarkexec/testdata/corpus) when they were measured.
func (s *nodeSlabs) sizeSlabs(tokens int) {
	s.calls.first = tokens * 137 / 1000
	s.binaries.first = tokens * 43 / 1000
	s.assigns.first = tokens * 39 / 1000
	s.exprStmts.first = tokens * 48 / 1000
	s.indexes.first = tokens * 11 / 1000
	s.dicts.first = tokens * 13 / 1000
	s.entries.first = tokens * 32 / 1000
	s.exprs.first = tokens * 208 / 1000
	s.stmtLists.first = tokens * 30 / 1000
}

func (s *slab[T]) next() *T {
	if len(s.free) == 0 {
		s.grow(1)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}

// list hands out n consecutive elements, nil for none, the capacity
// capped so that appending to the list never reaches a neighbour.
func (s *slab[T]) list(n int) []T {
	if n == 0 {
		return nil
	}
	if n > len(s.free) {
		if n > slabMax/2 {
			return make([]T, n)
		}
		s.grow(n)
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}

func (l *lowerer) exprStmt(x syntax.Expr) *syntax.ExprStmt {
	s := l.exprStmts.next()
	s.X = x
	return s
}

func (l *lowerer) indexExpr(x syntax.Expr, lbrack pos, y syntax.Expr, rbrack pos) *syntax.IndexExpr {
	ix := l.indexes.next()
	ix.X, ix.Lbrack, ix.Y, ix.Rbrack = x, l.pos(lbrack), y, l.pos(rbrack)
	return ix
}

func (l *lowerer) ident(name string, at pos) *syntax.Ident {
	// The slab's nodes are zero: setting fields one by one spares
	// copying a whole node under the GC's write barrier.
	id := l.idents.next()
	id.NamePos, id.Name = l.pos(at), name
	return id
}

func (l *lowerer) str(s string, at pos) *syntax.Literal {
	// Raw only feeds Span; the compiler uses Value.
	lit := l.literals.next()
	lit.Token, lit.TokenPos, lit.Raw, lit.Value = syntax.STRING, l.pos(at), `""`, s
	return lit
}

func (l *lowerer) int(n int, at pos) *syntax.Literal {
	lit := l.literals.next()
	lit.Token, lit.TokenPos, lit.Raw, lit.Value = syntax.INT, l.pos(at), strconv.Itoa(n), int64(n)
	return lit
}

// call builds fn(args...) with every position at at.
func (l *lowerer) call(fn string, at pos, args ...syntax.Expr) *syntax.CallExpr {
	c := l.calls.next()
	c.Fn, c.Lparen, c.Args, c.Rparen = l.ident(fn, at), l.pos(at), l.exprs.list(len(args)), l.pos(at)
	copy(c.Args, args)
	return c
}

func (l *lowerer) binary(op syntax.Token, x, y syntax.Expr, at pos) *syntax.BinaryExpr {
	b := l.binaries.next()
	b.X, b.OpPos, b.Op, b.Y = x, l.pos(at), op, y
	return b
}

func (l *lowerer) assign(lhs, rhs syntax.Expr, at pos) *syntax.AssignStmt {
	a := l.assigns.next()
	a.OpPos, a.Op, a.LHS, a.RHS = l.pos(at), syntax.EQ, lhs, rhs
	return a
}

// listOf is [__sa_v for __sa_v in x]: list(x) without naming list,
// which user code may have rebound.
func (l *lowerer) listOf(x syntax.Expr, at pos) syntax.Expr {
	return &syntax.Comprehension{
		Lbrack:  l.pos(at),
		Body:    l.ident("__sa_v", at),
		Clauses: []syntax.Node{&syntax.ForClause{For: l.pos(at), Vars: l.ident("__sa_v", at), In: l.pos(at), X: x}},
		Rbrack:  l.pos(at),
	}
}

func (l *lowerer) temp() string {
	l.ntemp++
	return "__sa_t" + strconv.Itoa(l.ntemp)
}

// needs reports valid Python the Starlark engine cannot run.
func (l *lowerer) needs(at pos, what string) {
	panic(bailout{&Error{Line: int(at.Line), Col: int(at.Col), Msg: what + " is not supported by the Starlark engine", NeedsPython: true}})
}

func isDunder(name string) bool { return len(name) >= 2 && name[0] == '_' && name[1] == '_' }

// checkName refuses identifiers beginning with "__", except the special
// methods a class body binds and reads (__repr__ = __str__).
func (l *lowerer) checkName(name string, at pos) {
	if isDunder(name) {
		if specialMethods[name] {
			if py, _ := l.pyScope(); py != nil && py.kind == scopeClass {
				return
			}
		}
		panic(bailout{&Error{Line: int(at.Line), Col: int(at.Col), Type: "NameError", Msg: "access to '" + name + "' is not allowed"}})
	}
}

func (l *lowerer) checkAttr(name string, at pos) {
	// The special methods a class may define are plain attributes of
	// the front end's objects (super().__init__, Base.__str__(self),
	// type(x).__name__); reflective ones (__class__, __dict__, ...) do
	// not exist here and stay refused.
	if isDunder(name) && !specialMethods[name] && name != "__name__" && name != "__cause__" {
		panic(bailout{&Error{Line: int(at.Line), Col: int(at.Col), Type: "AttributeError", Msg: "access to attribute '" + name + "' is not allowed"}})
	}
}

// ---- statements ----

func (l *lowerer) stmts(in []Stmt, out []syntax.Stmt) []syntax.Stmt {
	for _, s := range in {
		out = l.stmt(s, out)
	}
	return out
}

// body lowers a suite, which Starlark requires to be non-empty.
func (l *lowerer) body(in []Stmt, at pos) []syntax.Stmt {
	out := l.stmts(in, l.stmtLists.list(len(in))[:0])
	if len(out) == 0 {
		out = append(out, &syntax.BranchStmt{Token: syntax.PASS, TokenPos: l.pos(at)})
	}
	return out
}

func (l *lowerer) stmt(s Stmt, out []syntax.Stmt) []syntax.Stmt {
	switch n := s.(type) {
	case *ExprStmt:
		if c, ok := n.X.(*Const); ok && c.Kind == tELLIPSIS {
			return out // "..." as a placeholder statement
		}
		x := l.hoist(n.X, &out)
		return append(out, l.exprStmt(l.expr(x)))
	case *Assign:
		return l.assignStmt(n, out)
	case *AugAssign:
		return l.augAssign(n, out)
	case *AnnAssign:
		if n.Value == nil {
			l.target(n.Target)
			return out
		}
		return l.assignStmt(&Assign{pos: n.pos, Targets: []Expr{n.Target}, Value: n.Value}, out)
	case *If:
		cond := l.hoist(n.Cond, &out)
		l.guarded++ // if TYPE_CHECKING: import numpy
		is := &syntax.IfStmt{If: l.pos(n.pos), Cond: l.expr(cond), True: l.body(n.Body, n.pos)}
		if n.Else != nil {
			is.ElsePos = l.pos(n.pos)
			is.False = l.body(n.Else, n.pos)
		}
		l.guarded--
		return append(out, is)
	case *For:
		return l.forStmt(n, out)
	case *While:
		return l.whileStmt(n, out)
	case *FuncDef:
		return l.funcDef(n, out)
	case *Return:
		r := &syntax.ReturnStmt{Return: l.pos(n.pos)}
		if n.X != nil {
			r.Result = l.expr(l.hoist(n.X, &out))
		}
		if c := l.returnClosure(); c != nil {
			// return from inside a try body: the body function returns
			// (value,), which the code after the try returns.
			c.sigReturn = true
			if r.Result == nil {
				r.Result = l.ident("None", n.pos)
			}
			r.Result = &syntax.TupleExpr{Lparen: l.pos(n.pos), List: []syntax.Expr{r.Result}, Rparen: l.pos(n.pos)}
		}
		return append(out, r)
	case *Simple:
		switch n.Kind {
		case kwPass:
			return append(out, &syntax.BranchStmt{Token: syntax.PASS, TokenPos: l.pos(n.pos)})
		case kwContinue:
			if l.loops[len(l.loops)-1] == closureMark {
				return l.signal(out, "c", n.pos)
			}
			return append(out, &syntax.BranchStmt{Token: syntax.CONTINUE, TokenPos: l.pos(n.pos)})
		}
		if l.loops[len(l.loops)-1] == closureMark {
			return l.signal(out, "b", n.pos)
		}
		if flag := l.loops[len(l.loops)-1]; flag != "" {
			out = append(out, l.assign(l.ident(flag, n.pos), l.ident("True", n.pos), n.pos))
		}
		return append(out, &syntax.BranchStmt{Token: syntax.BREAK, TokenPos: l.pos(n.pos)})
	case *ImportStmt:
		return l.importStmt(n, out)
	case *ImportFrom:
		return l.importFrom(n, out)
	case *Global:
		// A declaration: name resolution (scope.go) does the work.
		for _, name := range n.Names {
			l.checkName(name, n.pos)
		}
		return out
	case *Del:
		return l.del(n, out)
	case *Assert:
		return l.assertStmt(n, out)
	case *Raise:
		return l.raise(n, out)
	case *Try:
		return l.try(n, out)
	case *ClassDef:
		return l.classDef(n, out)
	case *With:
		return l.with(n, out)
	case *Match:
		l.needs(n.pos, "the match statement")
	}
	panic("pyfront: unexpected statement")
}

// hoist moves assignment expressions that are evaluated before anything
// else in x (if (n := len(a)) > 10: ...) into assignments appended to
// out, and returns x with them replaced by their names. Any assignment
// expression left elsewhere is reported by expr.
func (l *lowerer) hoist(x Expr, out *[]syntax.Stmt) Expr {
	for {
		y, w := leftmostWalrus(x)
		if w == nil {
			return x
		}
		l.checkName(w.Target.ID, w.Target.pos)
		v := l.hoist(w.Value, out)
		*out = append(*out, l.assign(l.name(w.Target.ID, w.Target.pos, true), l.expr(v), w.pos))
		x = y
	}
}

// leftmostWalrus finds an assignment expression on the path evaluated
// first in x, returning a copy of x with it replaced by its target.
func leftmostWalrus(x Expr) (Expr, *NamedExpr) {
	switch n := x.(type) {
	case *NamedExpr:
		return n.Target, n
	case *Paren:
		return leftmostWalrus(n.X)
	case *Compare:
		if y, w := leftmostWalrus(n.X); w != nil {
			c := *n
			c.X = y
			return &c, w
		}
	case *BinOp:
		if y, w := leftmostWalrus(n.X); w != nil {
			c := *n
			c.X = y
			return &c, w
		}
	case *BoolOp:
		if y, w := leftmostWalrus(n.X); w != nil {
			c := *n
			c.X = y
			return &c, w
		}
	case *UnaryOp:
		if y, w := leftmostWalrus(n.X); w != nil {
			c := *n
			c.X = y
			return &c, w
		}
	case *Attr:
		if y, w := leftmostWalrus(n.X); w != nil {
			c := *n
			c.X = y
			return &c, w
		}
	case *Subscript:
		if y, w := leftmostWalrus(n.X); w != nil {
			c := *n
			c.X = y
			return &c, w
		}
		// a[(i := k)]: evaluating a first has no effect unless the
		// assignment rebinds it.
		if _, isSlice := n.Index.(*Slice); !isSlice && pureBefore(n.X) {
			if y, w := leftmostWalrus(n.Index); w != nil && !mentions(n.X, w.Target.ID) {
				c := *n
				c.Index = y
				return &c, w
			}
		}
	case *Call:
		// f((n := g())) with a plain function name: the argument is the
		// first thing evaluated that can have an effect.
		if len(n.Args) > 0 && n.Args[0].Kind == argPos && plainName(n.Fn) {
			if y, w := leftmostWalrus(n.Args[0].X); w != nil {
				c := *n
				c.Args = append([]Arg{{Kind: argPos, X: y}}, n.Args[1:]...)
				return &c, w
			}
		}
	}
	return x, nil
}

// pureBefore reports expressions whose evaluation has no effect and
// cannot fail in a way an assignment expression after them could change:
// names and constants.
func pureBefore(x Expr) bool {
	switch unparen(x).(type) {
	case *Name, *Num, *Str, *Const:
		return true
	}
	return false
}

// mentions reports whether x reads name.
func mentions(x Expr, name string) bool {
	found := false
	walkExpr(x, func(y Expr) {
		if nm, ok := y.(*Name); ok && nm.ID == name {
			found = true
		}
	})
	return found
}

func plainName(x Expr) bool {
	switch n := x.(type) {
	case *Name:
		return true
	case *Attr:
		return plainName(n.X)
	}
	return false
}

func (l *lowerer) assignStmt(n *Assign, out []syntax.Stmt) []syntax.Stmt {
	v := l.expr(l.hoist(n.Value, &out))
	if len(n.Targets) == 1 {
		return l.assignTo(n.Targets[0], v, n.pos, out)
	}
	// a = b = v: evaluate v once, assign left to right.
	var src syntax.Expr
	if first, ok := unparen(n.Targets[0]).(*Name); ok {
		out = l.assignTo(first, v, n.pos, out)
		src = l.name(first.ID, n.pos, false)
	} else {
		t := l.temp()
		out = append(out, l.assign(l.ident(t, n.pos), v, n.pos))
		out = l.assignTo(n.Targets[0], l.ident(t, n.pos), n.pos, out)
		src = l.ident(t, n.pos)
	}
	for _, t := range n.Targets[1:] {
		out = l.assignTo(t, src, n.pos, out)
	}
	return out
}

// assignTo assigns the lowered value v to a Python target, unpacking a
// starred target (first, *rest = v) with slices of a temporary list.
func (l *lowerer) assignTo(t Expr, v syntax.Expr, at pos, out []syntax.Stmt) []syntax.Stmt {
	seq, ok := unparen(t).(*Seq)
	star := -1
	if ok {
		for i, e := range seq.Elts {
			if _, ok := e.(*Starred); ok {
				star = i
			}
		}
	}
	if star < 0 {
		if sub, ok := unparen(t).(*Subscript); ok {
			if sl, ok := sub.Index.(*Slice); ok {
				return l.setSlice(sub, sl, v, at, out)
			}
		}
		if ok {
			v = l.unpackable(v, len(seq.Elts), at)
		}
		return append(out, l.assign(l.target(t), v, at))
	}
	tmp := l.temp()
	out = append(out, l.assign(l.ident(tmp, at), l.listOf(l.call(contract.HelperStar, at, v), at), at))
	pre, suf := seq.Elts[:star], seq.Elts[star+1:]
	np, ns := len(pre), len(suf)
	slice := func(x syntax.Expr, lo, hi syntax.Expr) syntax.Expr {
		return &syntax.SliceExpr{X: x, Lbrack: l.pos(at), Lo: lo, Hi: hi, Rbrack: l.pos(at)}
	}
	neg := func(n int) syntax.Expr {
		return &syntax.UnaryExpr{OpPos: l.pos(at), Op: syntax.MINUS, X: l.int(n, at)}
	}
	if np+ns > 0 {
		// The fixed targets take tmp[:np] + tmp[np:][-ns:]; a short list
		// makes the tuple assignment fail, as Python's unpacking does.
		var val syntax.Expr
		if np > 0 {
			val = slice(l.ident(tmp, at), nil, l.int(np, at))
		}
		if ns > 0 {
			tail := slice(slice(l.ident(tmp, at), l.int(np, at), nil), neg(ns), nil)
			if val == nil {
				val = tail
			} else {
				val = l.binary(syntax.PLUS, val, tail, at)
			}
		}
		lhs := &syntax.TupleExpr{Lparen: l.pos(at), Rparen: l.pos(at)}
		for _, e := range pre {
			lhs.List = append(lhs.List, l.target(e))
		}
		for _, e := range suf {
			lhs.List = append(lhs.List, l.target(e))
		}
		out = append(out, l.assign(lhs, val, at))
	}
	var hi syntax.Expr
	if ns > 0 {
		hi = neg(ns)
	}
	var lo syntax.Expr
	if np > 0 {
		lo = l.int(np, at)
	}
	st := seq.Elts[star].(*Starred)
	return append(out, l.assign(l.target(st.X), slice(l.ident(tmp, at), lo, hi), at))
}

// unpackable is the value v unpacked into n targets: a generator is
// drained by __sa_unpack[n] % v, so that its exception surfaces
// (builtins/unpack.go); a tuple or list display needs nothing.
func (l *lowerer) unpackable(v syntax.Expr, n int, at pos) syntax.Expr {
	switch v.(type) {
	case *syntax.TupleExpr, *syntax.ListExpr:
		return v
	}
	if n > contract.MaxUnpack {
		n = 0
	}
	guard := l.indexExpr(l.ident(contract.HelperUnpack, at), at, l.int(n, at), at)
	return l.binary(syntax.PERCENT, guard, v, at)
}

// target lowers an assignment target.
func (l *lowerer) target(t Expr) syntax.Expr {
	switch n := t.(type) {
	case *Paren:
		return l.target(n.X)
	case *Name:
		l.checkName(n.ID, n.pos)
		return l.name(n.ID, n.pos, true)
	case *Attr:
		l.checkAttr(n.Name, n.pos)
		return &syntax.DotExpr{X: l.expr(n.X), Dot: l.pos(n.Dot), NamePos: l.pos(n.pos), Name: l.ident(n.Name, n.pos)}
	case *Subscript:
		if _, ok := n.Index.(*Slice); ok {
			l.needs(n.pos, "slice assignment")
		}
		x := l.expr(n.X)
		return l.indexExpr(x, n.pos, l.index(n.Index), n.Rbrack)
	case *Seq:
		list := make([]syntax.Expr, len(n.Elts))
		for i, e := range n.Elts {
			if s, ok := e.(*Starred); ok {
				l.needs(s.pos, "a starred target nested in another target")
			}
			list[i] = l.target(e)
		}
		if n.Kind == tLBRACK {
			return &syntax.ListExpr{Lbrack: l.pos(n.pos), List: list, Rbrack: l.pos(n.End)}
		}
		return &syntax.TupleExpr{Lparen: l.pos(n.pos), List: list, Rparen: l.pos(n.End)}
	}
	l.needs(t.at(), "this assignment target")
	return nil
}

var augTokens = map[tokKind]syntax.Token{
	tPLUS: syntax.PLUS_EQ, tMINUS: syntax.MINUS_EQ, tSTAR: syntax.STAR_EQ,
	tSLASH: syntax.SLASH_EQ, tSLASHSLASH: syntax.SLASHSLASH_EQ,
	tPERCENT: syntax.PERCENT_EQ, tAMP: syntax.AMP_EQ, tPIPE: syntax.PIPE_EQ,
	tCARET: syntax.CIRCUMFLEX_EQ, tLTLT: syntax.LTLT_EQ, tGTGT: syntax.GTGT_EQ,
}

func (l *lowerer) augAssign(n *AugAssign, out []syntax.Stmt) []syntax.Stmt {
	helper := ""
	var prefix []syntax.Expr // arguments before the target's value
	switch {
	case boolOpNames[n.Op] != "" && n.Op != tPLUS && n.Op != tSTAR && mayBeBool(n.Value):
		helper = contract.HelperBinop
		prefix = []syntax.Expr{l.str(boolOpNames[n.Op], n.pos)}
	case n.Op == tAT:
		helper = contract.HelperMatmul
	case n.Op == tSTARSTAR:
		helper = contract.HelperPow
	case n.Op == tSTAR && !isFloatLit(n.Value) && l.knownNumber(n.Target) && l.knownNumber(n.Value):
		helper = contract.HelperNumMul
	case n.Op == tSTAR && !isFloatLit(n.Value):
		helper = contract.HelperMul
	case n.Op == tPLUS && !isLit(n.Value) && !(l.knownNumber(n.Target) && l.knownNumber(n.Value)):
		// In place for lists, as Python's +=; guarded like +.
		helper = contract.HelperIPlus
	case n.Op == tPERCENT && !isNumLit(n.Value):
		helper = contract.HelperMod
	case n.Op == tPERCENT && !(l.knownInt(n.Target) && l.knownInt(n.Value)):
		helper = contract.HelperRem // as binOp
	case n.Op == tSLASHSLASH && !(l.knownInt(n.Target) && l.knownInt(n.Value)):
		helper = contract.HelperFloorDiv
	case (n.Op == tLTLT || n.Op == tGTGT) && !smallShift(n.Value):
		helper = contract.HelperBinop
		prefix = []syntax.Expr{l.str(boolOpNames[n.Op], n.pos)}
	}
	// An instance on the left gets its in-place method (__isub__, ...)
	// through the guard of HelperInplace, in programs where a class may
	// define one; += has its own guard. A list, set or dict on the left
	// is changed in place by *=, |=, &=, -= and ^= through the same
	// guard, as in Python (y = x; x *= 2 changes y), unless the operand
	// is a number literal that none of them accepts (n -= 1).
	container := n.Op == tSTAR && !isFloatLit(n.Value) ||
		(n.Op == tPIPE || n.Op == tAMP || n.Op == tMINUS || n.Op == tCARET) && !isNumLit(n.Value)
	guard := helper != contract.HelperIPlus && (l.inplaceClasses() || container) && !l.knownNumber(n.Target)
	if helper == "" && !guard {
		lhs := l.target(n.Target)
		v := l.expr(l.hoist(n.Value, &out))
		return append(out, &syntax.AssignStmt{OpPos: l.pos(n.pos), Op: augTokens[n.Op], LHS: lhs, RHS: v})
	}
	// x op= v becomes x = helper(x, v) with the target's parts
	// evaluated once.
	var load, store syntax.Expr
	switch t := unparen(n.Target).(type) {
	case *Name:
		load, store = l.expr(t), l.target(t)
	case *Attr:
		l.checkAttr(t.Name, t.pos)
		obj := l.expr(t.X)
		if !simple(t.X) {
			tmp := l.temp()
			out = append(out, l.assign(l.ident(tmp, n.pos), obj, n.pos))
			obj = l.ident(tmp, n.pos)
		}
		dot := func() syntax.Expr {
			return &syntax.DotExpr{X: obj, Dot: l.pos(t.Dot), NamePos: l.pos(t.pos), Name: l.ident(t.Name, t.pos)}
		}
		load, store = dot(), dot()
	case *Subscript:
		if _, ok := t.Index.(*Slice); ok {
			l.needs(t.pos, "slice assignment")
		}
		obj, idx := l.expr(t.X), l.index(t.Index)
		if !simple(t.X) || !simple(t.Index) {
			t1, t2 := l.temp(), l.temp()
			out = append(out, l.assign(l.ident(t1, n.pos), obj, n.pos), l.assign(l.ident(t2, n.pos), idx, n.pos))
			obj, idx = l.ident(t1, n.pos), l.ident(t2, n.pos)
		}
		ix := func() syntax.Expr {
			return &syntax.IndexExpr{X: obj, Lbrack: l.pos(t.pos), Y: idx, Rbrack: l.pos(t.Rbrack)}
		}
		load, store = ix(), ix()
	}
	v := l.expr(l.hoist(n.Value, &out))
	if helper == contract.HelperIPlus {
		return append(out, l.assign(store, l.plus(helper, load, v, n.pos), n.pos))
	}
	if guard {
		load = l.binary(syntax.PERCENT, l.ident(contract.HelperInplace, n.pos), load, n.pos)
	}
	if helper == contract.HelperRem || helper == contract.HelperFloorDiv || helper == contract.HelperNumMul {
		return append(out, l.assign(store, l.plus(helper, load, v, n.pos), n.pos))
	}
	if helper == "" {
		return append(out, l.assign(store, l.binary(binTokens[n.Op], load, v, n.pos), n.pos))
	}
	return append(out, l.assign(store, l.call(helper, n.pos, append(prefix, load, v)...), n.pos))
}

// inplaceMethods are the in-place operator methods that augAssign's guard
// calls (x += y calls __iadd__ through HelperIPlus unless y is a literal).
var inplaceMethods = map[string]bool{
	"__iadd__": true, "__isub__": true, "__imul__": true, "__imatmul__": true, "__itruediv__": true,
	"__ifloordiv__": true, "__imod__": true, "__ipow__": true, "__ilshift__": true,
	"__irshift__": true, "__iand__": true, "__ior__": true, "__ixor__": true,
}

// inplaceMarker is the global a program that defines an in-place method
// binds, so that the programs of later steps, which may apply it to the
// instances of its classes, guard their augmented assignments too. The
// guard costs an operator per augmented assignment, which a loop of
// x -= 1 at module level would show; programs of sessions without such
// classes do without.
const inplaceMarker = "__sa_inplace_classes"

// inplaceClasses reports whether a class of this program or of an earlier
// step may define an in-place method.
func (l *lowerer) inplaceClasses() bool {
	return l.a.has.inplace || l.bound != nil && l.bound(inplaceMarker)
}

// simple reports expressions that can be evaluated twice without a
// visible difference.
func simple(x Expr) bool {
	switch n := x.(type) {
	case *Name, *Num, *Str, *Const:
		return true
	case *Paren:
		return simple(n.X)
	case *UnaryOp:
		_, ok := n.X.(*Num)
		return ok && n.Op == tMINUS
	}
	return false
}

// pure reports expressions without calls, so evaluating them in another
// order cannot be observed (beyond which of two errors is reported).
func pure(x Expr) bool {
	switch n := x.(type) {
	case *Name, *Num, *Str, *Const, *Lambda:
		return true
	case *Paren:
		return pure(n.X)
	case *Attr:
		return pure(n.X)
	case *Subscript:
		return pure(n.X) && pure(n.Index)
	case *BinOp:
		return pure(n.X) && pure(n.Y)
	case *BoolOp:
		return pure(n.X) && pure(n.Y)
	case *UnaryOp:
		return pure(n.X)
	case *Compare:
		for _, y := range n.Ys {
			if !pure(y) {
				return false
			}
		}
		return pure(n.X)
	case *Seq:
		for _, e := range n.Elts {
			if !pure(e) {
				return false
			}
		}
		return true
	}
	return false
}

// loop lowers a loop body; flag names the variable a break sets, or "".
func (l *lowerer) loop(body []Stmt, at pos, flag string) []syntax.Stmt {
	l.loops = append(l.loops, flag)
	out := l.body(body, at)
	l.loops = l.loops[:len(l.loops)-1]
	return out
}

// hasBreak reports whether a break in body leaves the loop that owns it.
func hasBreak(body []Stmt) bool {
	for _, s := range body {
		switch n := s.(type) {
		case *Simple:
			if n.Kind == kwBreak {
				return true
			}
		case *If:
			if hasBreak(n.Body) || hasBreak(n.Else) {
				return true
			}
		case *For:
			if hasBreak(n.Else) {
				return true
			}
		case *While:
			if hasBreak(n.Else) {
				return true
			}
		case *Try:
			if hasBreak(n.Body) || hasBreak(n.Else) || hasBreak(n.Finally) {
				return true
			}
			for _, h := range n.Handlers {
				if hasBreak(h.Body) {
					return true
				}
			}
		case *With:
			if hasBreak(n.Body) {
				return true
			}
		}
	}
	return false
}

// elseFlag prepares the flag of a loop with an else clause that a break
// can skip: flag = False before the loop.
func (l *lowerer) elseFlag(body, els []Stmt, at pos, out []syntax.Stmt) (string, []syntax.Stmt) {
	if els == nil || !hasBreak(body) {
		return "", out
	}
	flag := l.temp()
	return flag, append(out, l.assign(l.ident(flag, at), l.ident("False", at), at))
}

// elseClause runs els after the loop unless its flag was set.
func (l *lowerer) elseClause(flag string, els []Stmt, at pos, out []syntax.Stmt) []syntax.Stmt {
	if els == nil {
		return out
	}
	if flag == "" {
		return l.stmts(els, out)
	}
	return append(out, &syntax.IfStmt{
		If:   l.pos(at),
		Cond: &syntax.UnaryExpr{OpPos: l.pos(at), Op: syntax.NOT, X: l.ident(flag, at)},
		True: l.body(els, at),
	})
}

func (l *lowerer) forStmt(n *For, out []syntax.Stmt) []syntax.Stmt {
	if n.Async {
		l.needs(n.pos, "async for")
	}
	iter, check := l.loopOperand(l.hoist(n.Iter, &out), l.suspends(n.Body))
	flag, out := l.elseFlag(n.Body, n.Else, n.pos, out)
	fs := &syntax.ForStmt{For: l.pos(n.pos), X: iter}
	var pre []syntax.Stmt
	if _, seq := unparen(n.Target).(*Seq); hasStar(n.Target) || seq && !l.yieldsTuples(n.Iter) {
		// for a, *b in xs: unpack a temporary at the top of the body;
		// likewise for a, b in xs, whose items might be generators
		// (see unpackable).
		tmp := l.temp()
		fs.Vars = l.ident(tmp, n.pos)
		pre = l.assignTo(n.Target, l.ident(tmp, n.pos), n.pos, nil)
	} else {
		fs.Vars = l.target(n.Target)
	}
	fs.Body = append(pre, l.loop(n.Body, n.pos, flag)...)
	out = append(out, fs)
	if check {
		out = append(out, l.loopCheck(n.pos))
	}
	return l.elseClause(flag, n.Else, n.pos, out)
}

// yieldsTuples reports iterables whose items are tuples made by the
// runtime (d.items(), enumerate, zip), which unpack natively.
func (l *lowerer) yieldsTuples(x Expr) bool {
	c, ok := unparen(x).(*Call)
	if !ok {
		return false
	}
	switch fn := c.Fn.(type) {
	case *Attr:
		return fn.Name == "items" && len(c.Args) == 0
	case *Name:
		return (fn.ID == "enumerate" || fn.ID == "zip") && !l.shadowed(fn.ID)
	}
	return false
}

func hasStar(t Expr) bool {
	if s, ok := unparen(t).(*Seq); ok {
		for _, e := range s.Elts {
			if _, ok := e.(*Starred); ok {
				return true
			}
		}
	}
	return false
}

func (l *lowerer) whileStmt(n *While, out []syntax.Stmt) []syntax.Stmt {
	var pre []syntax.Stmt
	cond := l.hoist(n.Cond, &pre)
	if len(pre) == 0 {
		flag, out := l.elseFlag(n.Body, n.Else, n.pos, out)
		ws := &syntax.WhileStmt{While: l.pos(n.pos), Cond: l.expr(cond), Body: l.loop(n.Body, n.pos, flag)}
		return l.elseClause(flag, n.Else, n.pos, append(out, ws))
	}
	// while (x := f()) > 0: body  becomes
	// while True: x = f(); if not (x > 0): [done = True;] break; body
	done := ""
	if n.Else != nil {
		done = l.temp()
		out = append(out, l.assign(l.ident(done, n.pos), l.ident("False", n.pos), n.pos))
	}
	exit := []syntax.Stmt{&syntax.BranchStmt{Token: syntax.BREAK, TokenPos: l.pos(n.pos)}}
	if done != "" {
		exit = append([]syntax.Stmt{l.assign(l.ident(done, n.pos), l.ident("True", n.pos), n.pos)}, exit...)
	}
	check := &syntax.IfStmt{If: l.pos(n.pos), Cond: &syntax.UnaryExpr{OpPos: l.pos(n.pos), Op: syntax.NOT, X: l.expr(cond)}, True: exit}
	body := append(pre, check)
	body = append(body, l.loop(n.Body, n.pos, "")...)
	out = append(out, &syntax.WhileStmt{While: l.pos(n.pos), Cond: l.ident("True", n.pos), Body: body})
	if done != "" {
		out = append(out, &syntax.IfStmt{If: l.pos(n.pos), Cond: l.ident(done, n.pos), True: l.body(n.Else, n.pos)})
	}
	return out
}

func (l *lowerer) funcDef(n *FuncDef, out []syntax.Stmt) []syntax.Stmt {
	if n.Async {
		l.needs(n.pos, "async def")
	}
	if py, _ := l.pyScope(); py == nil || py.kind != scopeClass || !specialMethods[n.Name] {
		l.checkName(n.Name, n.NamePos)
	}
	generator := false
	if l.a.has.yield {
		_, generator = findYield(n.Body)
	}
	// A @contextmanager generator is run to its end by the with statement,
	// so the cleanup after its yield runs when Python runs it.
	if at, ok := cleanupYield(n.Body, false); ok && generator && !contextManaged(n.Decorators) {
		l.needs(at, "a yield inside try/finally, or under a handler of GeneratorExit,")
	}
	l.checkDeclarations(n.Body)
	// Decorators are evaluated before the def binds its name, which
	// matters when they refer to it (@x.setter on def x).
	decos := make([]syntax.Expr, len(n.Decorators))
	for i, d := range n.Decorators {
		decos[i] = l.expr(d)
		if rootName(d) == n.Name {
			tmp := l.temp()
			out = append(out, l.assign(l.ident(tmp, d.at()), decos[i], d.at()))
			decos[i] = l.ident(tmp, d.at())
		}
	}
	params := l.params(n.Params)
	posOnly := !generator && l.posOnly(n.Params, params)
	loops, handlers := l.loops, l.handlers
	l.loops, l.handlers = nil, nil
	fs := l.newScope(scopeFunc)
	walrus := l.a.has.walrus
	fs.names = functionLocals(n.Params, n.Body, walrus)
	fs.globals = declaredNames(n.Body, false)
	// The locals in cells: those try bodies or nested functions assign,
	// those deleted, those comprehensions assign (unless global). The
	// candidates are collected in the arena's scratch set.
	cand := l.a.scratch
	closureBindings(n.Body, cand, walrus)
	nestedNonlocals(n.Body, cand)
	deletedNames(n.Body, cand)
	if l.a.has.nested || l.a.has.lambda {
		lateFreeReads(n.Params, n.Body, fs.names, walrus, cand)
	}
	for name := range cand {
		if fs.names[name] {
			fs.addCell(name)
		}
	}
	clear(cand)
	if walrus && l.a.has.comp {
		compWalrusTargets(n.Body, cand)
		for name := range cand {
			if fs.names[name] && !fs.globals[name] {
				fs.addCell(name)
			}
		}
		clear(cand)
	}
	fs.generator = generator
	fs.numeric = numericNames(n.Params, n.Body, l.shadowed, true, l.a)
	if fs.numeric != nil {
		fs.ints = intNames(n.Params, n.Body, l.shadowed, l.a)
	}
	if len(n.Params) > 0 && n.Params[0].Kind == paramNormal {
		fs.self = n.Params[0].Name
	}
	l.scopes = append(l.scopes, fs)
	var body []syntax.Stmt
	if posOnly {
		for _, p := range n.Params {
			if p.Kind == paramSlash {
				break
			}
			body = append(body, l.assign(l.ident(p.Name, p.pos), l.ident(posOnlyPrefix+p.Name, p.pos), p.pos))
		}
	}
	body = append(body, l.cellInits(fs, n.Params, n.pos)...)
	body = append(body, l.body(n.Body, n.pos)...)
	if fs.usesG {
		// The function assigns globals it declares: through its module's
		// globals view, as Starlark cannot assign them by name.
		g := l.assign(l.ident(gview, n.pos), l.call(contract.HelperGlobals, n.pos), n.pos)
		body = append([]syntax.Stmt{g}, body...)
	}
	if generator {
		body = l.generatorBody(n, body)
	}
	l.scopes = l.scopes[:len(l.scopes)-1]
	l.loops, l.handlers = loops, handlers
	def := &syntax.DefStmt{
		Def:    l.pos(n.pos),
		Name:   l.ident(n.Name, n.NamePos),
		Lparen: l.pos(n.NamePos),
		Params: params,
		Rparen: l.pos(n.NamePos),
		Body:   body,
	}
	out = append(out, def)
	// The def binds a Starlark local; where Python's variable lives
	// elsewhere (a cell, a global assigned from a try body), store it.
	if t, ok := l.name(n.Name, n.NamePos, true).(*syntax.Ident); !ok || t.Name != n.Name {
		out = append(out, l.assign(l.name(n.Name, n.NamePos, true), l.ident(n.Name, n.NamePos), n.pos))
		if c := l.innerClosure(); c != nil && c.atModule {
			if len(n.Decorators) > 0 {
				l.needs(n.pos, "a decorated def inside a try statement at module level")
			}
			if c.defs == nil {
				c.defs = map[string]bool{}
			}
			c.defs[n.Name] = true
		}
	}
	if len(n.Decorators) == 0 {
		return out
	}
	// @d1 @d2 def f  becomes  def f; f = d1(d2(f)).
	var v syntax.Expr = l.name(n.Name, n.NamePos, false)
	for i := len(n.Decorators) - 1; i >= 0; i-- {
		d := n.Decorators[i]
		v = &syntax.CallExpr{Fn: decos[i], Lparen: l.pos(d.at()), Args: []syntax.Expr{v}, Rparen: l.pos(d.at())}
	}
	return append(out, l.assign(l.name(n.Name, n.NamePos, true), v, n.pos))
}

// rootName is the name an expression such as x.setter or f(a).b starts
// from, or "".
func rootName(x Expr) string {
	switch n := x.(type) {
	case *Name:
		return n.ID
	case *Attr:
		return rootName(n.X)
	case *Call:
		return rootName(n.Fn)
	case *Paren:
		return rootName(n.X)
	}
	return ""
}

// cellInits creates the cells of a function's cell variables at its
// start, parameters holding their argument.
func (l *lowerer) cellInits(fs *scope, params []Param, at pos) []syntax.Stmt {
	var out []syntax.Stmt
	isParam := map[string]bool{}
	for _, p := range params {
		isParam[p.Name] = true
	}
	for _, name := range sortedKeys(fs.cells) {
		args := []syntax.Expr{l.str(name, at)}
		if isParam[name] {
			args = append(args, l.ident(name, at))
		}
		out = append(out, l.assign(l.ident(cellName(name), at), l.call(contract.HelperCell, at, args...), at))
	}
	return out
}

func (l *lowerer) params(ps []Param) []syntax.Expr {
	out := l.exprs.list(len(ps))[:0]
	for _, p := range ps {
		if p.Name != "" {
			l.checkName(p.Name, p.pos)
		}
		switch p.Kind {
		case paramNormal:
			if p.Default != nil {
				out = append(out, l.binary(syntax.EQ, l.ident(p.Name, p.pos), l.expr(p.Default), p.pos))
			} else {
				out = append(out, l.ident(p.Name, p.pos))
			}
		case paramStar:
			u := &syntax.UnaryExpr{OpPos: l.pos(p.pos), Op: syntax.STAR}
			if p.Name != "" {
				u.X = l.ident(p.Name, p.pos)
			}
			out = append(out, u)
		case paramStarStar:
			out = append(out, &syntax.UnaryExpr{OpPos: l.pos(p.pos), Op: syntax.STARSTAR, X: l.ident(p.Name, p.pos)})
		case paramSlash:
			// Positional-only markers are dropped: every call that is
			// valid in Python binds the same way without them.
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// contextManaged reports a def decorated with @contextmanager or
// @contextlib.contextmanager.
func contextManaged(decos []Expr) bool {
	for _, d := range decos {
		switch x := unparen(d).(type) {
		case *Name:
			if x.ID == "contextmanager" {
				return true
			}
		case *Attr:
			if x.Name == "contextmanager" {
				return true
			}
		}
	}
	return false
}

// posOnlyPrefix renames a def's positional-only parameters in the
// lowered def, so that a call passing one by keyword fails (or, with
// **kwargs, passes it there) as in Python; the body starts by binding the
// parameter's own name.
const posOnlyPrefix = "__sa_po_"

// posOnly renames the positional-only parameters among the lowered
// params (a def's, as l.params returned them) and reports whether there
// were any.
func (l *lowerer) posOnly(ps []Param, params []syntax.Expr) bool {
	slash := -1
	for i, p := range ps {
		if p.Kind == paramSlash {
			slash = i
		}
	}
	if slash < 0 {
		return false
	}
	for i := 0; i < slash; i++ {
		switch x := params[i].(type) {
		case *syntax.Ident:
			x.Name = posOnlyPrefix + x.Name
		case *syntax.BinaryExpr: // a = default
			id := x.X.(*syntax.Ident)
			id.Name = posOnlyPrefix + id.Name
		}
	}
	return true
}

// findYield reports a yield in a function body (not in nested functions).
func findYield(body []Stmt) (pos, bool) {
	var found *pos
	walkStmts(body, func(x Expr) {
		if y, ok := x.(*Yield); ok && found == nil {
			found = &y.pos
		}
	}, nil)
	if found != nil {
		return *found, true
	}
	return pos{}, false
}

func bindTargets(t Expr, bound map[string]bool) {
	switch n := t.(type) {
	case *Name:
		bound[n.ID] = true
	case *Paren:
		bindTargets(n.X, bound)
	case *Starred:
		bindTargets(n.X, bound)
	case *Seq:
		for _, e := range n.Elts {
			bindTargets(e, bound)
		}
	}
}

func importBinding(a alias) string {
	if a.As != "" {
		return a.As
	}
	for i := 0; i < len(a.Name); i++ {
		if a.Name[i] == '.' {
			return a.Name[:i]
		}
	}
	return a.Name
}

// addImport records an import: in Program.Deferred when it is guarded
// (inside an if statement, or in the body of a try statement that catches
// ImportError), in Program.Imports otherwise.
func (l *lowerer) addImport(imp Import) {
	if l.guarded > 0 {
		l.deferred = append(l.deferred, imp)
		return
	}
	l.imports = append(l.imports, imp)
}

// catchesImportError reports a try statement with a handler that catches
// ImportError: a bare except, or one naming ImportError,
// ModuleNotFoundError, Exception or BaseException (alone or in a tuple).
func catchesImportError(n *Try) bool {
	for _, h := range n.Handlers {
		if h.Type == nil {
			return true
		}
		found := false
		walkExpr(h.Type, func(x Expr) {
			if nm, ok := x.(*Name); ok {
				switch nm.ID {
				case "ImportError", "ModuleNotFoundError", "Exception", "BaseException":
					found = true
				}
			}
		})
		if found {
			return true
		}
	}
	return false
}

func (l *lowerer) importStmt(n *ImportStmt, out []syntax.Stmt) []syntax.Stmt {
	for _, a := range n.Names {
		l.addImport(Import{Module: a.Name, Line: int(a.Line)})
		name := importBinding(a)
		l.checkName(name, a.pos)
		args := []syntax.Expr{l.str(a.Name, a.pos)}
		if a.As == "" && name != a.Name {
			// import a.b binds a, the top-level package.
			args = append(args, l.ident("True", a.pos))
		}
		out = append(out, l.assign(l.name(name, a.pos, true), l.call(contract.HelperImport, a.pos, args...), a.pos))
	}
	return out
}

func (l *lowerer) importFrom(n *ImportFrom, out []syntax.Stmt) []syntax.Stmt {
	if n.Level > 0 {
		panic(bailout{&Error{Line: int(n.Line), Col: int(n.Col), Msg: "relative imports are not supported"}})
	}
	if n.Module == "__future__" {
		return out // compiler directives with no effect here
	}
	if n.Names[0].Name == "*" {
		l.needs(n.pos, "from "+n.Module+" import *")
	}
	l.addImport(Import{Module: n.Module, Line: int(n.Line)})
	var mod syntax.Expr = l.call(contract.HelperImport, n.pos, l.str(n.Module, n.pos))
	if len(n.Names) > 1 {
		tmp := l.temp()
		out = append(out, l.assign(l.ident(tmp, n.pos), mod, n.pos))
		mod = l.ident(tmp, n.pos)
	}
	for _, a := range n.Names {
		l.checkAttr(a.Name, a.pos)
		name := a.Name
		if a.As != "" {
			name = a.As
		}
		l.checkName(name, a.pos)
		v := &syntax.DotExpr{X: mod, Dot: l.pos(a.pos), NamePos: l.pos(a.pos), Name: l.ident(a.Name, a.pos)}
		out = append(out, l.assign(l.name(name, a.pos, true), v, a.pos))
	}
	return out
}

func (l *lowerer) del(n *Del, out []syntax.Stmt) []syntax.Stmt {
	for _, t := range n.Targets {
		switch x := unparen(t).(type) {
		case *Seq:
			out = l.del(&Del{pos: n.pos, Targets: x.Elts}, out)
		case *Subscript:
			if sl, ok := x.Index.(*Slice); ok {
				args := append([]syntax.Expr{l.expr(x.X)}, l.sliceArgs(sl, x.pos)...)
				out = append(out, &syntax.ExprStmt{X: l.call(contract.HelperDelSlice, x.pos, args...)})
				continue
			}
			// del x[k]  becomes  __sa_del = __sa_delitem(x, k), which
			// removes the element of a list or dict or calls an
			// instance's __delitem__; the assignment keeps the result
			// from becoming the program's value.
			c := l.call(contract.HelperDelItem, x.pos, l.expr(x.X), l.index(x.Index))
			out = append(out, l.assign(l.ident("__sa_del", n.pos), c, x.pos))
		case *Name:
			l.checkName(x.ID, x.pos)
			out = append(out, l.delName(x))
		case *Attr:
			l.checkAttr(x.Name, x.pos)
			l.needs(x.pos, "deleting an attribute")
		default:
			l.needs(t.at(), "this del target")
		}
	}
	return out
}

func (l *lowerer) assertStmt(n *Assert, out []syntax.Stmt) []syntax.Stmt {
	// assert c, m  becomes  if not c: __sa_assert(m), which raises a real
	// AssertionError; m is evaluated only when the test fails.
	test := l.hoist(n.Test, &out)
	var args []syntax.Expr
	var fail []syntax.Stmt
	if n.Msg != nil {
		args = append(args, l.expr(l.hoist(n.Msg, &fail)))
	}
	fail = append(fail, &syntax.ExprStmt{X: l.call(contract.HelperAssert, n.pos, args...)})
	return append(out, &syntax.IfStmt{
		If:   l.pos(n.pos),
		Cond: &syntax.UnaryExpr{OpPos: l.pos(n.pos), Op: syntax.NOT, X: l.expr(test)},
		True: fail,
	})
}

// setSlice lowers x[lo:hi:step] = v (v already lowered) to
// __sa_setslice(x, lo, hi, step, v). Python evaluates v first: it is
// bound to a temporary unless the target's parts cannot observe the
// difference.
func (l *lowerer) setSlice(sub *Subscript, sl *Slice, v syntax.Expr, at pos, out []syntax.Stmt) []syntax.Stmt {
	if !pure(sub.X) || (sl.Lo != nil && !pure(sl.Lo)) || (sl.Hi != nil && !pure(sl.Hi)) || (sl.Step != nil && !pure(sl.Step)) {
		tmp := l.temp()
		out = append(out, l.assign(l.ident(tmp, at), v, at))
		v = l.ident(tmp, at)
	}
	args := append([]syntax.Expr{l.expr(sub.X)}, l.sliceArgs(sl, sub.pos)...)
	return append(out, &syntax.ExprStmt{X: l.call(contract.HelperSetSlice, sub.pos, append(args, v)...)})
}

// sliceArgs lowers the bounds of a slice, None where absent.
func (l *lowerer) sliceArgs(sl *Slice, at pos) []syntax.Expr {
	var args []syntax.Expr
	for _, b := range []Expr{sl.Lo, sl.Hi, sl.Step} {
		if b == nil {
			args = append(args, l.ident("None", at))
		} else {
			args = append(args, l.expr(b))
		}
	}
	return args
}

// delName lowers del x: a function's variables that are deleted live in
// cells (see funcDef), which can be emptied; globals are unbound in
// their module.
func (l *lowerer) delName(x *Name) syntax.Stmt {
	ref := l.name(x.ID, x.pos, true)
	if d, ok := ref.(*syntax.DotExpr); ok {
		if id, ok := d.X.(*syntax.Ident); ok && id.Name == cellName(x.ID) {
			return &syntax.ExprStmt{X: l.call(contract.HelperUnbind, x.pos, id)}
		}
		return &syntax.ExprStmt{X: l.call(contract.HelperDelGlobal, x.pos, l.str(x.ID, x.pos))}
	}
	if py, _ := l.pyScope(); py.kind != scopeModule {
		l.needs(x.pos, "deleting a variable (del "+x.ID+") here")
	}
	// At module level the name needs a slot in the module even if
	// nothing else in this step mentions it.
	l.scopes[0].gdecl[x.ID] = true
	return &syntax.ExprStmt{X: l.call(contract.HelperDelGlobal, x.pos, l.str(x.ID, x.pos))}
}
