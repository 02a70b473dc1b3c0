package pyfront

// The parser is a recursive-descent parser for Python 3.11 over the
// scanner's tokens. It reports CPython's messages for the syntax errors
// models commonly make, and CPython's compile-time checks ('return'
// outside function, 'break' outside loop, bad assignment targets).

import "strconv"

type parser struct {
	src   string
	toks  []token
	i     int
	funcs int // enclosing function definitions (0 at module level and in class bodies)
	loops int // enclosing loops within the innermost function
	a     *arena
	depth int       // nesting level of what is being parsed (depth.go)
	peak  int       // deepest level reached since the last measure (depth.go)
	last  construct // the construct entered last but for cNested and cBlock

	// posOf's last answer.
	posTok *token
	posOff int
	posAt  pos
}

// bailout carries a syntax error out of the recursive descent.
type bailout struct{ err *Error }

// parseFile parses a module into nodes from a, which must not be
// returned to the pool while they are in use.
func parseFile(src string, a *arena) (stmts []Stmt, err error) {
	toks, err := scanFile(src, a)
	if err != nil {
		return nil, err
	}
	a.size(toks)
	p := &parser{src: src, toks: toks, a: a}
	defer p.recover(&err)
	for p.kind() != tEOF {
		if p.kind() == tNEWLINE {
			p.i++
			continue
		}
		p.stmt()
	}
	if stmts = takeList(&p.a.stmts, p.a.sstack); stmts == nil {
		stmts = []Stmt{}
	}
	return stmts, nil
}

func (p *parser) recover(err *error) {
	if r := recover(); r != nil {
		b, ok := r.(bailout)
		if !ok {
			panic(r)
		}
		*err = b.err
	}
}

func (p *parser) tok() *token   { return &p.toks[p.i] }
func (p *parser) kind() tokKind { return p.toks[p.i].kind }
func (p *parser) peek(n int) tokKind {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n].kind
	}
	return tEOF
}
func (p *parser) next() *token {
	t := &p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}
func (p *parser) text(t *token) string { return p.src[t.off:t.end] }

// strValue decodes a string token that is not an f-string.
func (p *parser) strValue(t *token) string {
	text := p.src[t.body:t.bodyEnd]
	if t.flags&strRaw != 0 {
		return normalizeNewlines(text)
	}
	v, msg, needs := unescape(text, t.flags&strBytes != 0)
	if msg != "" {
		panic(bailout{&Error{Line: int(t.line), Col: int(t.col), Msg: msg, NeedsPython: needs}})
	}
	return v
}
func (t *token) at() pos { return pos{t.line, t.col} }

func (p *parser) failAt(at pos, msg string) {
	panic(bailout{&Error{Line: int(at.Line), Col: int(at.Col), Msg: msg}})
}

func (p *parser) fail(msg string) { p.failAt(p.tok().at(), msg) }

// syntaxError reports the current token as unexpected.
func (p *parser) syntaxError() {
	t := p.tok()
	switch t.kind {
	case tINDENT:
		p.indentError(t.at(), "unexpected indent")
	case tDEDENT:
		p.indentError(t.at(), "unindent does not match any outer indentation level")
	case tEOF:
		p.fail("unexpected EOF while parsing")
	}
	p.fail("invalid syntax")
}

func (p *parser) indentError(at pos, msg string) {
	panic(bailout{&Error{Line: int(at.Line), Col: int(at.Col), Msg: msg, Type: "IndentationError"}})
}

func (p *parser) expect(k tokKind) *token {
	if p.kind() != k {
		if k == tCOLON {
			p.fail("expected ':'")
		}
		p.syntaxError()
	}
	return p.next()
}

func (p *parser) name() (string, pos) {
	if p.kind() != tNAME {
		p.syntaxError()
	}
	t := p.next()
	return p.text(t), t.at()
}

// ---- statements ----

// stmt parses a statement (several for simple statements separated by
// ';') onto the statement stack.
func (p *parser) stmt() {
	// Heights are measured within a statement (depth.go): what earlier
	// statements reached does not count.
	p.peak = p.depth
	if s := p.compound(); s != nil {
		p.a.sstack = append(p.a.sstack, s)
		return
	}
	p.a.sstack = p.simpleStmts(p.a.sstack)
}

// compound parses a compound statement, or returns nil at a simple one.
func (p *parser) compound() Stmt {
	t := p.tok()
	switch t.kind {
	case tINDENT:
		p.indentError(t.at(), "unexpected indent")
	case kwIf:
		return p.ifStmt("'if' statement")
	case kwWhile:
		return p.whileStmt()
	case kwFor:
		return p.forStmt(false)
	case kwDef:
		return p.funcDef(nil, false)
	case kwClass:
		return p.classDef(nil)
	case kwTry:
		return p.tryStmt()
	case kwWith:
		return p.withStmt(false)
	case tAT:
		return p.decorated()
	case kwAsync:
		p.next()
		switch p.kind() {
		case kwDef:
			return p.funcDef(nil, true)
		case kwFor:
			return p.forStmt(true)
		case kwWith:
			return p.withStmt(true)
		}
		p.syntaxError()
	case tNAME:
		if p.text(t) == "match" && p.isMatch() {
			return p.skipMatch()
		}
	}
	return nil
}

// isMatch reports whether the logical line at a "match" name is a match
// statement: it ends with ':' and opens a block.
func (p *parser) isMatch() bool {
	switch p.peek(1) {
	case tASSIGN, tDOT, tCOLON, tNEWLINE, tCOMMA:
		return false
	}
	for j := p.i; j < len(p.toks); j++ {
		if p.toks[j].kind == tNEWLINE {
			return j > 0 && p.toks[j-1].kind == tCOLON && j+1 < len(p.toks) && p.toks[j+1].kind == tINDENT
		}
	}
	return false
}

func (p *parser) skipMatch() Stmt {
	t := p.tok()
	for p.kind() != tINDENT {
		p.next()
	}
	depth := 0
	for {
		switch p.next().kind {
		case tINDENT:
			depth++
		case tDEDENT:
			depth--
		case tEOF:
			return &Match{t.at()}
		}
		if depth == 0 {
			return &Match{t.at()}
		}
	}
}

// block parses ':' and a suite after a compound statement's header.
func (p *parser) block(what string, line int32) []Stmt {
	p.expect(tCOLON)
	p.enter(cBlock)
	defer p.leave()
	start := len(p.a.sstack)
	if p.kind() != tNEWLINE {
		p.a.sstack = p.simpleStmts(p.a.sstack)
		return p.stmtList(start)
	}
	p.next()
	if p.kind() != tINDENT {
		p.indentError(p.tok().at(), "expected an indented block after "+what+" on line "+strconv.Itoa(int(line)))
	}
	p.next()
	for p.kind() != tDEDENT && p.kind() != tEOF {
		p.stmt()
	}
	p.next()
	return p.stmtList(start)
}

// stmtList pops the statements above start off the statement stack.
func (p *parser) stmtList(start int) []Stmt {
	a := p.a
	out := takeList(&a.stmts, a.sstack[start:])
	clear(a.sstack[start:])
	a.sstack = a.sstack[:start]
	return out
}

// exprList pops the expressions above start off the expression stack.
func (p *parser) exprList(start int) []Expr {
	a := p.a
	out := takeList(&a.exprs, a.estack[start:])
	clear(a.estack[start:])
	a.estack = a.estack[:start]
	return out
}

// push pushes x onto the expression stack.
func (p *parser) push(x Expr) {
	p.a.estack = append(p.a.estack, x)
}

func (p *parser) ifStmt(what string) Stmt {
	t := p.next()
	n := take(&p.a.ifs)
	n.pos, n.Cond = t.at(), p.namedExprTest()
	n.Body = p.block(what, t.line)
	switch p.kind() {
	case kwElif:
		// Lowered into the else of this if: one level deeper.
		p.enter(cElif)
		n.Else = []Stmt{p.ifStmt("'elif' statement")}
		p.leave()
	case kwElse:
		e := p.next()
		n.Else = p.block("'else' statement", e.line)
	}
	return n
}

func (p *parser) loopBody(what string, line int32) []Stmt {
	p.loops++
	body := p.block(what, line)
	p.loops--
	return body
}

func (p *parser) elseBlock() []Stmt {
	if p.kind() != kwElse {
		return nil
	}
	e := p.next()
	return p.block("'else' statement", e.line)
}

func (p *parser) whileStmt() Stmt {
	t := p.next()
	n := &While{pos: t.at(), Cond: p.namedExprTest()}
	n.Body = p.loopBody("'while' statement", t.line)
	n.Else = p.elseBlock()
	return n
}

func (p *parser) forStmt(async bool) Stmt {
	t := p.next()
	n := take(&p.a.fors)
	n.pos, n.Async = t.at(), async
	n.Target = p.targetList()
	p.checkTarget(n.Target, "for")
	if p.kind() != kwIn {
		p.syntaxError()
	}
	p.next()
	n.Iter = p.testListStarExpr()
	n.Body = p.loopBody("'for' statement", t.line)
	n.Else = p.elseBlock()
	return n
}

func (p *parser) decorated() Stmt {
	var decos []Expr
	depth := p.depth
	for p.kind() == tAT {
		p.next()
		// @d1 @d2 def f is lowered to f = d1(d2(f)): each decorator one
		// level deeper than the one before.
		p.enter(cDecorator)
		decos = append(decos, p.namedExprTest())
		p.expect(tNEWLINE)
	}
	p.depth = depth
	switch p.kind() {
	case kwDef:
		return p.funcDef(decos, false)
	case kwClass:
		return p.classDef(decos)
	case kwAsync:
		if p.peek(1) == kwDef {
			p.next()
			return p.funcDef(decos, true)
		}
	}
	p.syntaxError()
	return nil
}

func (p *parser) funcDef(decos []Expr, async bool) Stmt {
	t := p.next()
	n := take(&p.a.funcDefs)
	n.pos, n.Decorators, n.Async = t.at(), decos, async
	n.Name, n.NamePos = p.name()
	if inplaceMethods[n.Name] {
		p.a.has.inplace = true
	}
	if p.funcs > 0 {
		p.a.has.nested = true
	}
	p.expect(tLPAREN)
	n.Params = p.params(tRPAREN)
	p.expect(tRPAREN)
	if p.kind() == tARROW {
		p.next()
		p.test()
	}
	funcs, loops := p.funcs, p.loops
	p.funcs, p.loops = funcs+1, 0
	n.Body = p.block("function definition", t.line)
	p.funcs, p.loops = funcs, loops
	return n
}

func (p *parser) classDef(decos []Expr) Stmt {
	t := p.next()
	n := &ClassDef{pos: t.at(), Decorators: decos}
	n.Name, _ = p.name()
	if p.kind() == tLPAREN {
		p.next()
		n.Bases = p.args()
	}
	funcs, loops := p.funcs, p.loops
	p.funcs, p.loops = 0, 0
	n.Body = p.block("class definition", t.line)
	p.funcs, p.loops = funcs, loops
	return n
}

func (p *parser) tryStmt() Stmt {
	t := p.next()
	n := &Try{pos: t.at()}
	n.Body = p.block("'try' statement", t.line)
	depth := p.depth
	for p.kind() == kwExcept {
		e := p.next()
		// The handlers are lowered to a chain of if and else: each one
		// level deeper than the one before.
		p.enter(cExcept)
		h := handler{pos: e.at()}
		if p.kind() == tSTAR {
			p.next()
		}
		if p.kind() != tCOLON {
			h.Type = p.test()
			if p.kind() == tCOMMA {
				p.fail("multiple exception types must be parenthesized")
			}
			if p.kind() == kwAs {
				p.next()
				h.Name, _ = p.name()
			}
		}
		h.Body = p.block("'except' statement", e.line)
		n.Handlers = append(n.Handlers, h)
	}
	p.depth = depth
	if len(n.Handlers) > 0 && p.kind() == kwElse {
		n.Else = p.elseBlock()
	}
	if p.kind() == kwFinally {
		f := p.next()
		n.Finally = p.block("'finally' statement", f.line)
	}
	if len(n.Handlers) == 0 && n.Finally == nil {
		at := p.tok().at()
		if p.kind() == tEOF {
			j := p.i - 1
			for j > 0 && (p.toks[j].kind == tDEDENT || p.toks[j].kind == tNEWLINE) {
				j--
			}
			at = p.toks[j].at()
		}
		p.failAt(at, "expected 'except' or 'finally' block")
	}
	return n
}

func (p *parser) withStmt(async bool) Stmt {
	t := p.next()
	n := &With{pos: t.at(), Async: async}
	paren := false
	if p.kind() == tLPAREN {
		// with (a as b, c): is the parenthesized form if an 'as' or a
		// trailing ',' appears at depth 1 and ':' follows the ')'.
		depth, j := 0, p.i
		for ; j < len(p.toks); j++ {
			k := p.toks[j].kind
			if k == tLPAREN || k == tLBRACK || k == tLBRACE {
				depth++
			} else if k == tRPAREN || k == tRBRACK || k == tRBRACE {
				depth--
				if depth == 0 {
					break
				}
			} else if depth == 1 && (k == kwAs || k == tCOMMA) {
				paren = true
			}
		}
		paren = paren && j+1 < len(p.toks) && p.toks[j+1].kind == tCOLON
		if paren {
			p.next()
		}
	}
	for {
		if paren && p.kind() == tRPAREN {
			break
		}
		it := withItem{Ctx: p.test()}
		if p.kind() == kwAs {
			p.next()
			it.Var = p.bitOr() // one target: "as x, y" is a second item
			p.checkTarget(it.Var, "with")
		}
		n.Items = append(n.Items, it)
		if p.kind() != tCOMMA {
			break
		}
		p.next()
	}
	if paren {
		p.expect(tRPAREN)
	}
	n.Body = p.block("'with' statement", t.line)
	return n
}

func (p *parser) simpleStmts(out []Stmt) []Stmt {
	for {
		out = append(out, p.smallStmt())
		if p.kind() != tSEMI {
			break
		}
		p.next()
		if p.kind() == tNEWLINE {
			break
		}
	}
	if p.kind() != tNEWLINE {
		p.syntaxError()
	}
	p.next()
	return out
}

func (p *parser) smallStmt() Stmt {
	t := p.tok()
	at := t.at()
	switch t.kind {
	case kwPass:
		p.next()
		return &Simple{at, kwPass}
	case kwBreak:
		if p.loops == 0 {
			p.fail("'break' outside loop")
		}
		p.next()
		return &Simple{at, kwBreak}
	case kwContinue:
		if p.loops == 0 {
			p.fail("'continue' not properly in loop")
		}
		p.next()
		return &Simple{at, kwContinue}
	case kwReturn:
		if p.funcs == 0 {
			p.fail("'return' outside function")
		}
		p.next()
		n := take(&p.a.returns)
		n.pos = at
		if startsExpr(p.kind()) {
			n.X = p.testListStarExpr()
		}
		return n
	case kwGlobal, kwNonlocal:
		p.next()
		n := &Global{pos: at, Nonlocal: t.kind == kwNonlocal}
		if n.Nonlocal && p.funcs == 0 {
			p.failAt(at, "nonlocal declaration not allowed at module level")
		}
		for {
			name, _ := p.name()
			n.Names = append(n.Names, name)
			if p.kind() != tCOMMA {
				break
			}
			p.next()
		}
		return n
	case kwDel:
		p.next()
		n := &Del{pos: at}
		for {
			x := p.bitOr()
			p.checkTarget(x, "del")
			n.Targets = append(n.Targets, x)
			if p.kind() != tCOMMA {
				break
			}
			p.next()
			if !startsExpr(p.kind()) {
				break
			}
		}
		return n
	case kwAssert:
		p.next()
		n := &Assert{pos: at, Test: p.test()}
		if p.kind() == tCOMMA {
			p.next()
			n.Msg = p.test()
		}
		return n
	case kwRaise:
		p.next()
		n := &Raise{pos: at}
		if startsExpr(p.kind()) {
			n.Exc = p.test()
			if p.kind() == kwFrom {
				p.next()
				n.Cause = p.test()
			}
		}
		return n
	case kwImport:
		p.next()
		n := take(&p.a.imports)
		n.pos = at
		var buf [4]alias
		names := buf[:0]
		for {
			a := alias{pos: p.tok().at(), Name: p.dottedName()}
			if p.kind() == kwAs {
				p.next()
				a.As, _ = p.name()
			}
			names = append(names, a)
			if p.kind() != tCOMMA {
				break
			}
			p.next()
		}
		n.Names = takeList(&p.a.aliases, names)
		return n
	case kwFrom:
		return p.importFrom()
	}
	return p.exprStmt()
}

func (p *parser) dottedName() string {
	name, _ := p.name()
	for p.kind() == tDOT {
		p.next()
		n, _ := p.name()
		name += "." + n
	}
	return name
}

func (p *parser) importFrom() Stmt {
	t := p.next()
	n := take(&p.a.froms)
	n.pos = t.at()
	for {
		if p.kind() == tDOT {
			n.Level++
		} else if p.kind() == tELLIPSIS {
			n.Level += 3
		} else {
			break
		}
		p.next()
	}
	if p.kind() != kwImport || n.Level == 0 {
		n.Module = p.dottedName()
	}
	if p.kind() != kwImport {
		p.syntaxError()
	}
	p.next()
	if p.kind() == tSTAR {
		s := p.next()
		n.Names = []alias{{pos: s.at(), Name: "*"}}
		return n
	}
	paren := p.kind() == tLPAREN
	if paren {
		p.next()
	}
	var buf [4]alias
	names := buf[:0]
	for {
		a := alias{pos: p.tok().at()}
		a.Name, _ = p.name()
		if p.kind() == kwAs {
			p.next()
			a.As, _ = p.name()
		}
		names = append(names, a)
		if p.kind() != tCOMMA {
			break
		}
		p.next()
		if paren && p.kind() == tRPAREN {
			break
		}
		if !paren && p.kind() == tNEWLINE {
			p.fail("trailing comma not allowed without surrounding parentheses")
		}
	}
	n.Names = takeList(&p.a.aliases, names)
	if paren {
		p.expect(tRPAREN)
	}
	return n
}

// augOps maps an augmented assignment token to its binary operator.
var augOps = [256]tokKind{
	tPLUSEQ: tPLUS, tMINUSEQ: tMINUS, tSTAREQ: tSTAR, tSTARSTAREQ: tSTARSTAR,
	tSLASHEQ: tSLASH, tSLASHSLASHEQ: tSLASHSLASH, tPERCENTEQ: tPERCENT,
	tAMPEQ: tAMP, tPIPEEQ: tPIPE, tCARETEQ: tCARET, tLTLTEQ: tLTLT,
	tGTGTEQ: tGTGT, tATEQ: tAT,
}

func (p *parser) exprStmt() Stmt {
	start := p.tok().at()
	if p.kind() == kwYield {
		return &ExprStmt{pos: start, X: p.yieldExpr()}
	}
	first := p.testListStarExpr()
	if n, ok := first.(*Name); ok && (n.ID == "print" || n.ID == "exec") && startsExpr(p.kind()) && p.kind() != tLPAREN && p.kind() != tLBRACK {
		p.failAt(start, "Missing parentheses in call to '"+n.ID+"'. Did you mean "+n.ID+"(...)?")
	}
	switch k := p.kind(); {
	case k == tASSIGN:
		n := take(&p.a.assigns)
		n.pos = p.tok().at()
		start := len(p.a.estack)
		p.push(first)
		for p.kind() == tASSIGN {
			p.next()
			var v Expr
			if p.kind() == kwYield {
				v = p.yieldExpr()
			} else {
				v = p.testListStarExpr()
			}
			p.push(v)
		}
		last := len(p.a.estack) - 1
		n.Value = p.a.estack[last]
		p.a.estack[last] = nil
		p.a.estack = p.a.estack[:last]
		n.Targets = p.exprList(start)
		for _, t := range n.Targets {
			p.checkTarget(t, "assign")
		}
		p.checkStarredValue(n.Value)
		return n
	case augOps[k] != 0:
		switch unparen(first).(type) {
		case *Name, *Attr, *Subscript:
		default:
			p.failAt(start, "'"+describe(first)+"' is an illegal expression for augmented assignment")
		}
		p.checkTarget(first, "aug")
		op := p.next()
		n := &AugAssign{pos: op.at(), Op: augOps[k], Target: first}
		if p.kind() == kwYield {
			n.Value = p.yieldExpr()
		} else {
			n.Value = p.testListStarExpr()
		}
		return n
	case k == tCOLON:
		switch x := first.(type) {
		case *Name, *Attr, *Subscript:
		case *Paren:
			switch x.X.(type) {
			case *Name, *Attr, *Subscript:
			default:
				p.failAt(start, "only single target (not tuple) can be annotated")
			}
		case *Seq:
			p.failAt(start, "only single target (not "+describeSeq(x)+") can be annotated")
		default:
			p.failAt(start, "illegal target for annotation")
		}
		p.checkTarget(first, "assign")
		p.next()
		p.test()
		n := &AnnAssign{pos: start, Target: first}
		if p.kind() == tASSIGN {
			p.next()
			if p.kind() == kwYield {
				n.Value = p.yieldExpr()
			} else {
				n.Value = p.testListStarExpr()
			}
		}
		return n
	}
	p.checkStarredValue(first)
	n := take(&p.a.exprStmts)
	n.pos, n.X = start, first
	return n
}

func (p *parser) checkStarredValue(x Expr) {
	if s, ok := x.(*Starred); ok {
		p.failAt(s.pos, "can't use starred expression here")
	}
}

func unparen(x Expr) Expr {
	for {
		p, ok := x.(*Paren)
		if !ok {
			return x
		}
		x = p.X
	}
}

func describeSeq(s *Seq) string {
	switch s.Kind {
	case tLBRACK:
		return "list"
	case tLBRACE:
		return "set display"
	}
	return "tuple"
}

// describe names an expression the way CPython's error messages do.
func describe(x Expr) string {
	switch x := x.(type) {
	case *Paren:
		return describe(x.X)
	case *Call:
		return "function call"
	case *Num, *Str:
		return "literal"
	case *FStr:
		return "f-string expression"
	case *Const:
		switch x.Kind {
		case kwNone:
			return "None"
		case kwTrue:
			return "True"
		case kwFalse:
			return "False"
		}
		return "ellipsis"
	case *Compare:
		return "comparison"
	case *Lambda:
		return "lambda"
	case *IfExp:
		return "conditional expression"
	case *Dict:
		return "dict literal"
	case *Seq:
		return describeSeq(x)
	case *Comp:
		switch x.Kind {
		case tLBRACK:
			return "list comprehension"
		case tLBRACE:
			return "set comprehension"
		case tCOLON:
			return "dict comprehension"
		}
		return "generator expression"
	case *NamedExpr:
		return "named expression"
	case *Yield:
		return "yield expression"
	case *Await:
		return "await expression"
	case *Starred:
		return "starred"
	case *Name:
		return "name"
	case *Attr:
		return "attribute"
	case *Subscript:
		return "subscript"
	}
	return "expression"
}

// checkTarget reports expressions that cannot be assigned (ctx "assign",
// "for", "with", "aug", "comprehension") or deleted (ctx "del").
func (p *parser) checkTarget(x Expr, ctx string) {
	switch t := x.(type) {
	case *Name, *Attr, *Subscript:
		return
	case *Paren:
		p.checkTarget(t.X, ctx)
		return
	case *Seq:
		if t.Kind != tLBRACE {
			stars := 0
			for _, e := range t.Elts {
				if s, ok := e.(*Starred); ok && ctx != "del" {
					stars++
					if stars > 1 {
						p.failAt(s.pos, "multiple starred expressions in assignment")
					}
					p.checkTarget(s.X, ctx)
					continue
				}
				p.checkTarget(e, ctx)
			}
			return
		}
	case *Starred:
		if ctx != "del" {
			p.failAt(t.pos, "starred assignment target must be in a list or tuple")
		}
	}
	what := describe(x)
	at := x.at()
	if s, ok := x.(*Seq); ok {
		at = s.pos
	}
	switch {
	case ctx == "del":
		p.failAt(at, "cannot delete "+what)
	case what == "None" || what == "True" || what == "False":
		p.failAt(at, "cannot assign to "+what)
	case ctx == "assign":
		p.failAt(at, "cannot assign to "+what+" here. Maybe you meant '==' instead of '='?")
	}
	p.failAt(at, "cannot assign to "+what)
}
