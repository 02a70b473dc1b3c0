package pyfront

// The parser's expressions, from lowest to highest precedence.

import (
	"fmt"
	"strconv"
)

// startsExpr reports whether k can begin an expression.
func startsExpr(k tokKind) bool {
	switch k {
	case tNAME, tNUMBER, tSTRING, tLPAREN, tLBRACK, tLBRACE, tMINUS, tPLUS,
		tTILDE, tSTAR, tELLIPSIS, kwNone, kwTrue, kwFalse, kwNot, kwLambda,
		kwAwait, kwYield:
		return true
	}
	return false
}

// testListStarExpr parses a comma-separated list of expressions and
// starred expressions (an unparenthesized tuple if there is a comma).
func (p *parser) testListStarExpr() Expr {
	start := p.tok().at()
	first := p.starOrTest()
	if p.kind() != tCOMMA {
		return first
	}
	mark := len(p.a.estack)
	p.push(first)
	for p.kind() == tCOMMA {
		p.next()
		if !startsExpr(p.kind()) || p.kind() == kwYield {
			break
		}
		p.push(p.starOrTest())
	}
	return p.seq(start, tLPAREN, mark)
}

func (p *parser) starOrTest() Expr {
	if p.kind() == tSTAR {
		t := p.next()
		return &Starred{pos: t.at(), X: p.bitOr()}
	}
	return p.test()
}

func (p *parser) starOrNamed() Expr {
	if p.kind() == tSTAR {
		t := p.next()
		return &Starred{pos: t.at(), X: p.bitOr()}
	}
	return p.namedExprTest()
}

// targetList parses for-loop and comprehension targets.
func (p *parser) targetList() Expr {
	start := p.tok().at()
	one := func() Expr {
		if p.kind() == tSTAR {
			t := p.next()
			return &Starred{pos: t.at(), X: p.bitOr()}
		}
		return p.bitOr()
	}
	first := one()
	if p.kind() != tCOMMA {
		return first
	}
	mark := len(p.a.estack)
	p.push(first)
	for p.kind() == tCOMMA {
		p.next()
		if p.kind() == kwIn || !startsExpr(p.kind()) {
			break
		}
		p.push(one())
	}
	return p.seq(start, tLPAREN, mark)
}

func (p *parser) namedExprTest() Expr {
	if p.kind() == tNAME && p.peek(1) == tWALRUS {
		t := p.next()
		w := p.next()
		p.a.has.walrus = true
		return &NamedExpr{pos: w.at(), Target: p.newName(t), Value: p.test()}
	}
	x := p.test()
	if p.kind() == tWALRUS {
		p.failAt(x.at(), "cannot use assignment expressions with "+describe(x))
	}
	return x
}

func (p *parser) test() Expr {
	switch p.kind() {
	case kwLambda:
		return p.lambda()
	case tNAME, tNUMBER, tSTRING:
		// A lone atom, the commonest test, needs no descent through
		// the precedence levels.
		if endsTest(p.peek(1)) {
			return p.atom()
		}
	}
	saved := p.measure()
	x := p.orTest()
	if p.kind() != kwIf {
		p.settle(saved, p.height())
		return x
	}
	h := p.height()
	t := p.next()
	// The condition and the else branch (a 1 if c else 2 if ... chain
	// recurses here) one level down; x too, with wrap.
	p.enter(cCond)
	cond := p.orTest()
	if p.kind() != kwElse {
		p.fail("expected 'else' after 'if' expression")
	}
	p.next()
	f := p.test()
	p.leave()
	p.settle(saved, p.wrap(h, cCond))
	return &IfExp{pos: t.at(), Cond: cond, True: x, False: f}
}

// endsTest reports whether k, after an atom, ends the test the atom
// begins: no operator, trailer or clause can follow it.
func endsTest(k tokKind) bool {
	switch k {
	case tCOMMA, tRPAREN, tRBRACK, tRBRACE, tCOLON, tASSIGN, tNEWLINE, tSEMI, tEOF:
		return true
	}
	return false
}

func (p *parser) lambda() Expr {
	t := p.next()
	p.enter(cLambda)
	params := p.params(tCOLON)
	p.expect(tCOLON)
	funcs, loops := p.funcs, p.loops
	p.funcs, p.loops = funcs+1, 0
	body := p.test()
	p.funcs, p.loops = funcs, loops
	p.leave()
	p.a.has.lambda = true
	n := take(&p.a.lambdas)
	*n = Lambda{pos: t.at(), Params: params, Body: body}
	return n
}

// params parses a def's (end ')') or a lambda's (end ':') parameters.
func (p *parser) params(end tokKind) []Param {
	var buf [4]Param
	params := buf[:0]
	seen := map[string]bool{}
	sawDefault, sawStar, sawStarStar, bareStar := false, false, false, false
	for p.kind() != end {
		if sawStarStar {
			p.fail("arguments cannot follow var-keyword argument")
		}
		t := p.tok()
		var pr Param
		pr.pos = t.at()
		switch t.kind {
		case tSLASH:
			p.next()
			if len(params) == 0 || sawStar {
				p.failAt(t.at(), "invalid syntax")
			}
			pr.Kind = paramSlash
		case tSTAR:
			p.next()
			if sawStar {
				p.failAt(t.at(), "* argument may appear only once")
			}
			sawStar = true
			pr.Kind = paramStar
			if p.kind() == tNAME {
				pr.Name, pr.pos = p.name()
				p.annotation(end)
			} else {
				bareStar = true
				if p.kind() != tCOMMA {
					p.fail("named arguments must follow bare *")
				}
			}
		case tSTARSTAR:
			p.next()
			sawStarStar = true
			pr.Kind = paramStarStar
			pr.Name, pr.pos = p.name()
			p.annotation(end)
		default:
			pr.Name, pr.pos = p.name()
			p.annotation(end)
			if p.kind() == tASSIGN {
				p.next()
				pr.Default = p.test()
				sawDefault = true
			} else if sawDefault && !sawStar {
				p.failAt(pr.pos, "non-default argument follows default argument")
			}
			bareStar = false
		}
		if pr.Name != "" {
			if seen[pr.Name] {
				p.failAt(pr.pos, "duplicate argument '"+pr.Name+"' in function definition")
			}
			seen[pr.Name] = true
		}
		params = append(params, pr)
		if p.kind() != tCOMMA {
			break
		}
		p.next()
	}
	if bareStar {
		p.fail("named arguments must follow bare *")
	}
	return takeList(&p.a.params, params)
}

func (p *parser) annotation(end tokKind) {
	if end == tRPAREN && p.kind() == tCOLON {
		p.next()
		p.test()
	}
}

func (p *parser) orTest() Expr {
	saved := p.measure()
	x := p.andTest()
	h := p.height()
	for p.kind() == kwOr {
		t := p.next()
		p.peak = p.depth
		y := p.andTest()
		h = p.grow(h, 1, cBool)
		x = &BoolOp{pos: t.at(), Op: kwOr, X: x, Y: y}
	}
	p.settle(saved, h)
	return x
}

func (p *parser) andTest() Expr {
	saved := p.measure()
	x := p.notTest()
	h := p.height()
	for p.kind() == kwAnd {
		t := p.next()
		p.peak = p.depth
		y := p.notTest()
		h = p.grow(h, 1, cBool)
		x = &BoolOp{pos: t.at(), Op: kwAnd, X: x, Y: y}
	}
	p.settle(saved, h)
	return x
}

func (p *parser) notTest() Expr {
	if p.kind() == kwNot {
		t := p.next()
		p.enter(cNot)
		x := p.notTest()
		p.leave()
		return &UnaryOp{pos: t.at(), Op: kwNot, X: x}
	}
	return p.comparison()
}

func (p *parser) comparison() Expr {
	saved := p.measure()
	x := p.bitOr()
	// A chain a < b < c is lowered to nested ands: one level per
	// operator.
	h := p.height()
	var c *Compare
	var opsBuf [2]cmpOp
	ops := opsBuf[:0]
	mark := len(p.a.estack)
	for {
		t := p.tok()
		op := t.kind
		switch op {
		case tLT, tGT, tLE, tGE, tEQ, tNE, kwIn:
			p.next()
		case kwIs:
			p.next()
			if p.kind() == kwNot {
				p.next()
				op = isNot
			}
		case kwNot:
			if p.peek(1) != kwIn {
				p.settle(saved, h)
				return p.cmpResult(x, c, ops, mark)
			}
			p.next()
			p.next()
			op = notIn
		default:
			p.settle(saved, h)
			return p.cmpResult(x, c, ops, mark)
		}
		if c == nil {
			c = take(&p.a.compares)
			c.pos, c.X = t.at(), x
		}
		ops = append(ops, cmpOp{t.at(), op})
		p.peak = p.depth
		p.push(p.bitOr())
		h = p.grow(h, cmpLevels, cCompare)
	}
}

func (p *parser) cmpResult(x Expr, c *Compare, ops []cmpOp, mark int) Expr {
	if c == nil {
		return x
	}
	c.Ops = takeList(&p.a.cmpOps, ops)
	c.Ys = p.exprList(mark)
	return c
}

// binPrec is the precedence of a binary operator (0 for other tokens),
// from | (1) to the multiplicative operators (6).
func binPrec(k tokKind) int {
	switch k {
	case tPIPE:
		return 1
	case tCARET:
		return 2
	case tAMP:
		return 3
	case tLTLT, tGTGT:
		return 4
	case tPLUS, tMINUS:
		return 5
	case tSTAR, tSLASH, tSLASHSLASH, tPERCENT, tAT:
		return 6
	}
	return 0
}

// bitOr parses Python's bitwise_or, the binary operators above the
// comparisons, by precedence climbing.
func (p *parser) bitOr() Expr { return p.binExpr(1) }

// binExpr is where every recursion through brackets, calls and
// subscripts passes: it opens a level of nesting.
func (p *parser) binExpr(min int) Expr {
	p.enter(cNested)
	saved := p.measure()
	x := p.factor()
	h := p.height()
	for {
		prec := binPrec(p.kind())
		if prec == 0 || prec < min {
			p.settle(saved, h)
			p.leave()
			return x
		}
		t := p.next()
		b := take(&p.a.binops)
		b.pos, b.Op, b.X = t.at(), t.kind, x
		p.peak = p.depth
		b.Y = p.binExpr(prec + 1)
		h = p.grow(h, 1, cBinary)
		x = b
	}
}

func (p *parser) factor() Expr {
	switch k := p.kind(); k {
	case tPLUS, tMINUS, tTILDE:
		t := p.next()
		p.enter(cUnary)
		x := p.factor()
		p.leave()
		return &UnaryOp{pos: t.at(), Op: k, X: x}
	}
	return p.power()
}

func (p *parser) power() Expr {
	saved := p.measure()
	var x Expr
	if p.kind() == kwAwait {
		t := p.next()
		x = &Await{pos: t.at(), X: p.primary()}
	} else {
		x = p.primary()
	}
	h := p.height()
	if p.kind() == tSTARSTAR {
		t := p.next()
		b := take(&p.a.binops)
		b.pos, b.Op, b.X = t.at(), tSTARSTAR, x
		// 2 ** 2 ** 2 ... recurses here.
		p.enter(cBinary)
		b.Y = p.factor()
		p.leave()
		p.settle(saved, p.wrap(h, cBinary))
		return b
	}
	p.settle(saved, h)
	return x
}

func (p *parser) primary() Expr {
	saved := p.measure()
	x := p.atom()
	h := p.height()
	for {
		switch p.kind() {
		case tLPAREN:
			t := p.next()
			p.peak = p.depth
			args := p.args()
			h = p.grow(h, 1, cTrailer)
			c := take(&p.a.calls)
			*c = Call{pos: t.at(), Fn: x, Args: args, Rparen: p.toks[p.i-1].at()}
			x = c
		case tLBRACK:
			t := p.next()
			p.peak = p.depth
			idx := p.subscript()
			h = p.grow(h, 1, cTrailer)
			r := p.expect(tRBRACK)
			s := take(&p.a.subs)
			*s = Subscript{pos: t.at(), X: x, Index: idx, Rbrack: r.at()}
			x = s
		case tDOT:
			d := p.next()
			name, at := p.name()
			p.peak = p.depth
			h = p.grow(h, 1, cTrailer)
			a := take(&p.a.attrs)
			*a = Attr{pos: at, X: x, Name: name, Dot: d.at()}
			x = a
		default:
			p.settle(saved, h)
			return x
		}
	}
}

// args parses call arguments after '(' up to and including ')'.
func (p *parser) args() []Arg {
	mark := len(p.a.astack)
	sawKw, sawStarStar := false, false
	stars := 0
	for p.kind() != tRPAREN {
		switch p.kind() {
		case tSTAR:
			p.next()
			stars++
			if sawStarStar {
				p.fail("iterable argument unpacking follows keyword argument unpacking")
			}
			p.pushArg(Arg{Kind: argStar}, p.test())
		case tSTARSTAR:
			p.next()
			sawStarStar = true
			p.pushArg(Arg{Kind: argStarStar}, p.test())
		default:
			if p.kind() == tNAME && p.peek(1) == tASSIGN {
				name, at := p.name()
				p.next()
				for _, a := range p.a.astack[mark:] {
					if a.Kind == argKw && a.Name == name {
						p.failAt(at, "keyword argument repeated: "+name)
					}
				}
				sawKw = true
				p.pushArg(Arg{Kind: argKw, Name: name, NamePos: at}, p.test())
				break
			}
			x := p.namedExprTest()
			if p.kind() == kwFor || p.kind() == kwAsync && p.peek(1) == kwFor {
				g := p.comp(tLPAREN, x, nil, x.at())
				if len(p.a.astack) > mark || p.kind() != tRPAREN {
					p.failAt(x.at(), "Generator expression must be parenthesized")
				}
				p.pushArg(Arg{Kind: argPos}, g)
				break
			}
			if p.kind() == tASSIGN {
				p.failAt(x.at(), `expression cannot contain assignment, perhaps you meant "=="?`)
			}
			if sawStarStar {
				p.failAt(x.at(), "positional argument follows keyword argument unpacking")
			} else if sawKw {
				p.failAt(x.at(), "positional argument follows keyword argument")
			}
			p.pushArg(Arg{Kind: argPos}, x)
		}
		if p.kind() != tCOMMA {
			break
		}
		p.next()
	}
	p.expect(tRPAREN)
	// Several *args are lowered to a chain of concatenations.
	p.lengthen(stars, cStarred)
	a := p.a
	args := takeList(&a.args, a.astack[mark:])
	clear(a.astack[mark:])
	a.astack = a.astack[:mark]
	return args
}

// pushArg pushes a with expression x onto the argument stack.
func (p *parser) pushArg(a Arg, x Expr) {
	a.X = x
	p.a.astack = append(p.a.astack, a)
}

func (p *parser) subscript() Expr {
	start := p.tok().at()
	first := p.sliceItem()
	if p.kind() != tCOMMA {
		return first
	}
	mark := len(p.a.estack)
	p.push(first)
	for p.kind() == tCOMMA {
		p.next()
		if p.kind() == tRBRACK {
			break
		}
		p.push(p.sliceItem())
	}
	return p.seq(start, tLPAREN, mark)
}

func (p *parser) sliceItem() Expr {
	at := p.tok().at()
	var lo Expr
	if p.kind() != tCOLON {
		lo = p.starOrNamed()
		if p.kind() != tCOLON {
			return lo
		}
	}
	p.next()
	s := &Slice{pos: at, Lo: lo}
	if p.kind() != tCOLON && p.kind() != tRBRACK && p.kind() != tCOMMA {
		s.Hi = p.test()
	}
	if p.kind() == tCOLON {
		p.next()
		if p.kind() != tRBRACK && p.kind() != tCOMMA {
			s.Step = p.test()
		}
	}
	return s
}

// comp parses the clauses of a comprehension whose element was parsed.
func (p *parser) comp(kind tokKind, elt, val Expr, at pos) *Comp {
	p.a.has.comp = true
	c := take(&p.a.comps)
	*c = Comp{pos: at, Kind: kind, Elt: elt, Val: val}
	var clBuf [1]clause
	cls := clBuf[:0]
	clauses := 0
	for p.kind() == kwFor || p.kind() == kwAsync && p.peek(1) == kwFor {
		var cl clause
		if p.kind() == kwAsync {
			p.next()
			cl.Async = true
		}
		cl.pos = p.next().at()
		cl.Target = p.targetList()
		p.checkTarget(cl.Target, "comprehension")
		if p.kind() != kwIn {
			p.syntaxError()
		}
		p.next()
		cl.Iter = p.orTest()
		mark := len(p.a.estack)
		for p.kind() == kwIf {
			p.next()
			p.push(p.orTestOrLambda())
		}
		cl.Ifs = p.exprList(mark)
		cls = append(cls, cl)
		// Each for and if clause nests in go.starlark.net's compiler
		// and in the lowering of a generator.
		clauses += 1 + len(cl.Ifs)
		if len(cls) > maxCompFor {
			p.failAt(cl.pos, "the code is nested too deeply: a comprehension has more than "+
				strconv.Itoa(maxCompFor)+" 'for' clauses; use for loops instead")
		}
	}
	p.lengthen(clauses, cComp)
	c.Clauses = takeList(&p.a.clauses, cls)
	c.End = p.tok().at()
	return c
}

func (p *parser) orTestOrLambda() Expr {
	if p.kind() == kwLambda {
		return p.lambda()
	}
	return p.orTest()
}

func (p *parser) yieldExpr() Expr {
	t := p.next()
	if p.funcs == 0 {
		p.failAt(t.at(), "'yield' outside function")
	}
	p.a.has.yield = true
	y := &Yield{pos: t.at()}
	if p.kind() == kwFrom {
		p.next()
		y.From = true
		y.X = p.test()
	} else if startsExpr(p.kind()) {
		y.X = p.testListStarExpr()
	}
	return y
}

func (p *parser) atom() Expr {
	t := p.tok()
	at := t.at()
	switch t.kind {
	case tNAME:
		p.next()
		return p.newName(t)
	case tNUMBER:
		p.next()
		if n := decimalDigits(p.text(t)); n > maxIntDigits {
			p.failAt(at, fmt.Sprintf("Exceeds the limit (%d digits) for integer string conversion: value has %d digits; sys.set_int_max_str_digits() is not available here - write huge integer literals in hexadecimal (0x...)", maxIntDigits, n))
		}
		v, imag := numValue(p.text(t))
		n := take(&p.a.nums)
		*n = Num{pos: at, Raw: p.text(t), Val: v, Imag: imag}
		return n
	case tSTRING:
		return p.strings()
	case kwNone, kwTrue, kwFalse, tELLIPSIS:
		p.next()
		c := take(&p.a.consts)
		*c = Const{at, t.kind}
		return c
	case tLPAREN:
		p.next()
		if p.kind() == tRPAREN {
			r := p.next()
			return &Seq{pos: at, Kind: tLPAREN, End: r.at(), Paren: true}
		}
		if p.kind() == kwYield {
			y := p.yieldExpr()
			p.expect(tRPAREN)
			return &Paren{at, y}
		}
		first := p.starOrNamed()
		if p.kind() == kwFor || p.kind() == kwAsync && p.peek(1) == kwFor {
			if _, ok := first.(*Starred); ok {
				p.failAt(first.at(), "iterable unpacking cannot be used in comprehension")
			}
			c := p.comp(tLPAREN, first, nil, at)
			p.expect(tRPAREN)
			return c
		}
		if p.kind() == tCOMMA {
			mark := len(p.a.estack)
			p.push(first)
			for p.kind() == tCOMMA {
				p.next()
				if p.kind() == tRPAREN {
					break
				}
				p.push(p.starOrNamed())
			}
			r := p.expect(tRPAREN)
			s := p.seq(at, tLPAREN, mark)
			s.End, s.Paren = r.at(), true
			return s
		}
		if p.kind() != tRPAREN {
			p.syntaxError()
		}
		p.next()
		if s, ok := first.(*Starred); ok {
			p.failAt(s.pos, "cannot use starred expression here")
		}
		n := take(&p.a.parens)
		*n = Paren{at, first}
		return n
	case tLBRACK:
		p.next()
		if p.kind() == tRBRACK {
			r := p.next()
			return &Seq{pos: at, Kind: tLBRACK, End: r.at()}
		}
		first := p.starOrNamed()
		if p.kind() == kwFor || p.kind() == kwAsync && p.peek(1) == kwFor {
			if _, ok := first.(*Starred); ok {
				p.failAt(first.at(), "iterable unpacking cannot be used in comprehension")
			}
			c := p.comp(tLBRACK, first, nil, at)
			p.expect(tRBRACK)
			return c
		}
		return p.display(tLBRACK, tRBRACK, first, at)
	case tLBRACE:
		return p.brace()
	}
	p.syntaxError()
	return nil
}

// display parses the rest of a list or set display after its first element.
func (p *parser) display(kind, end tokKind, first Expr, at pos) Expr {
	mark := len(p.a.estack)
	p.push(first)
	for p.kind() == tCOMMA {
		p.next()
		if p.kind() == end {
			break
		}
		p.push(p.starOrNamed())
	}
	r := p.expect(end)
	s := p.seq(at, kind, mark)
	s.End = r.at()
	return s
}

// newName returns a Name for NAME token t.
func (p *parser) newName(t *token) *Name {
	n := take(&p.a.names)
	n.pos, n.ID = t.at(), p.text(t)
	return n
}

// seq returns a Seq whose elements are popped off the expression stack
// above mark.
func (p *parser) seq(at pos, kind tokKind, mark int) *Seq {
	s := take(&p.a.seqs)
	s.pos, s.Kind = at, kind
	// Starred items are lowered to a chain of concatenations.
	stars := 0
	for _, e := range p.a.estack[mark:] {
		if _, ok := e.(*Starred); ok {
			stars++
		}
	}
	p.lengthen(stars, cStarred)
	s.Elts = p.exprList(mark)
	return s
}

func (p *parser) brace() Expr {
	t := p.next()
	at := t.at()
	if p.kind() == tRBRACE {
		r := p.next()
		d := take(&p.a.dicts)
		*d = Dict{pos: at, End: r.at()}
		return d
	}
	var key, val Expr
	if p.kind() == tSTARSTAR {
		p.next()
		val = p.bitOr()
	} else {
		key = p.starOrNamed()
		if p.kind() != tCOLON {
			// A set.
			if p.kind() == kwFor || p.kind() == kwAsync && p.peek(1) == kwFor {
				if _, ok := key.(*Starred); ok {
					p.failAt(key.at(), "iterable unpacking cannot be used in comprehension")
				}
				c := p.comp(tLBRACE, key, nil, at)
				p.expect(tRBRACE)
				return c
			}
			return p.display(tLBRACE, tRBRACE, key, at)
		}
		if _, ok := key.(*Starred); ok {
			p.failAt(key.at(), "cannot use a starred expression in a dictionary value")
		}
		p.next()
		val = p.test()
		if p.kind() == kwFor || p.kind() == kwAsync && p.peek(1) == kwFor {
			c := p.comp(tCOLON, key, val, at)
			p.expect(tRBRACE)
			return c
		}
	}
	d := take(&p.a.dicts)
	d.pos = at
	mark := len(p.a.estack)
	p.push(key)
	p.push(val)
	for p.kind() == tCOMMA {
		p.next()
		if p.kind() == tRBRACE {
			break
		}
		if p.kind() == tSTARSTAR {
			p.next()
			p.push(nil)
			p.push(p.bitOr())
			continue
		}
		k := p.test()
		if p.kind() != tCOLON {
			p.failAt(k.at(), "':' expected after dictionary key")
		}
		p.next()
		p.push(k)
		p.push(p.test())
	}
	r := p.expect(tRBRACE)
	d.End = r.at()
	// Keys and values alternate on the stack; a nil key marks **v, and
	// several are lowered to a chain of concatenations.
	a := p.a
	kv := a.estack[mark:]
	n := len(kv) / 2
	stars := 0
	for i := 0; i < len(kv); i += 2 {
		if kv[i] == nil {
			stars++
		}
	}
	p.lengthen(stars, cStarred)
	keys := takeList(&a.exprs, kv[:n])
	vals := takeList(&a.exprs, kv[n:])
	for i := 0; i < n; i++ {
		keys[i], vals[i] = kv[2*i], kv[2*i+1]
	}
	d.Keys, d.Values = keys, vals
	clear(kv)
	a.estack = a.estack[:mark]
	return d
}
