package pyfront

import (
	"math/big"
	"slices"
	"strings"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Lowering of expressions.

var binTokens = map[tokKind]syntax.Token{
	tPLUS: syntax.PLUS, tMINUS: syntax.MINUS, tSTAR: syntax.STAR,
	tSLASH: syntax.SLASH, tSLASHSLASH: syntax.SLASHSLASH, tPERCENT: syntax.PERCENT,
	tAMP: syntax.AMP, tPIPE: syntax.PIPE, tCARET: syntax.CIRCUMFLEX,
	tLTLT: syntax.LTLT, tGTGT: syntax.GTGT,
}

var cmpTokens = map[tokKind]syntax.Token{
	tLT: syntax.LT, tGT: syntax.GT, tLE: syntax.LE, tGE: syntax.GE,
	tEQ: syntax.EQL, tNE: syntax.NEQ, kwIn: syntax.IN, notIn: syntax.NOT_IN,
}

func (l *lowerer) expr(x Expr) syntax.Expr {
	switch n := x.(type) {
	case *Name:
		if n.ID == "__name__" {
			return l.str("__main__", n.pos)
		}
		l.checkName(n.ID, n.pos)
		return l.name(n.ID, n.pos, false)
	case *Num:
		if n.Imag {
			l.needs(n.pos, "complex number "+n.Raw)
		}
		lit := l.literals.next()
		*lit = syntax.Literal{TokenPos: l.pos(n.pos), Raw: n.Raw, Value: n.Val}
		switch n.Val.(type) {
		case float64:
			lit.Token = syntax.FLOAT
		case int64, *big.Int:
			lit.Token = syntax.INT
		}
		return lit
	case *Str:
		lit := l.literals.next()
		*lit = syntax.Literal{Token: syntax.STRING, TokenPos: l.pos(n.pos), Raw: n.Raw, Value: n.Val}
		if n.Bytes {
			lit.Token = syntax.BYTES
		}
		return lit
	case *FStr:
		return l.fstr(n.Parts, n.pos)
	case *Const:
		switch n.Kind {
		case kwNone:
			return l.ident("None", n.pos)
		case kwTrue:
			return l.ident("True", n.pos)
		case kwFalse:
			return l.ident("False", n.pos)
		}
		return l.ident(contract.HelperEllipsis, n.pos)
	case *Paren:
		return l.expr(n.X)
	case *Attr:
		x := l.expr(n.X)
		if !contract.ReadableDunder(n.Name) && !unmangledPrivate(n.Name) {
			l.checkAttr(n.Name, n.pos)
		}
		return l.attr(x, n.Name, n.Dot, n.pos)
	case *Subscript:
		// Through the runtime: a str is indexed and sliced by code point
		// (go.starlark.net by byte), an instance's __getitem__ gets slice
		// objects. A string key (row["name"]) cannot select a code point,
		// so it stays Starlark's faster index.
		if s, ok := n.Index.(*Slice); ok {
			return l.call(contract.HelperSlice, n.pos, append([]syntax.Expr{l.expr(n.X)}, l.sliceArgs(s, n.pos)...)...)
		}
		if k, ok := unparen(n.Index).(*Str); ok && !k.Bytes {
			x := l.expr(n.X)
			return l.indexExpr(x, n.pos, l.index(n.Index), n.Rbrack)
		}
		return l.call(contract.HelperIndex, n.pos, l.expr(n.X), l.index(n.Index))
	case *Call:
		return l.callExpr(n)
	case *BinOp:
		return l.binOp(n)
	case *UnaryOp:
		if n.Op != kwNot && mayBeBool(n.X) {
			// -True is -1, +True is 1, ~True is -2: 0 - x, 0 + x, -1 - x.
			zero, op := l.int(0, n.pos), "-"
			switch n.Op {
			case tPLUS:
				op = "+"
			case tTILDE:
				zero = l.int(-1, n.pos)
			}
			return l.call(contract.HelperBinop, n.pos, l.str(op, n.pos), zero, l.expr(n.X))
		}
		op := syntax.NOT
		switch n.Op {
		case tPLUS:
			op = syntax.PLUS
		case tMINUS:
			op = syntax.MINUS
		case tTILDE:
			op = syntax.TILDE
		}
		return &syntax.UnaryExpr{OpPos: l.pos(n.pos), Op: op, X: l.expr(n.X)}
	case *BoolOp:
		op := syntax.AND
		if n.Op == kwOr {
			op = syntax.OR
		}
		return l.binary(op, l.expr(n.X), l.expr(n.Y), n.pos)
	case *Compare:
		return l.compare(n)
	case *IfExp:
		return &syntax.CondExpr{If: l.pos(n.pos), Cond: l.expr(n.Cond), True: l.expr(n.True), ElsePos: l.pos(n.pos), False: l.expr(n.False)}
	case *Lambda:
		loops := l.loops
		l.loops = nil
		params := l.params(n.Params)
		ls := l.newScope(scopeLocal)
		for _, p := range n.Params {
			if p.Name != "" {
				ls.names[p.Name] = true
			}
		}
		l.scopes = append(l.scopes, ls)
		lam := &syntax.LambdaExpr{Lambda: l.pos(n.pos), Params: params, Body: l.expr(n.Body)}
		l.scopes = l.scopes[:len(l.scopes)-1]
		l.loops = loops
		return lam
	case *Seq:
		return l.seq(n)
	case *Dict:
		return l.dict(n)
	case *Comp:
		return l.comp(n)
	case *Starred:
		l.needs(n.pos, "a starred expression here")
	case *NamedExpr:
		return l.namedInComp(n)
	case *Yield:
		return l.yield(n)
	case *Await:
		l.needs(n.pos, "await")
	case *Slice:
		l.needs(n.pos, "a slice here")
	}
	panic("pyfront: unexpected expression")
}

// attr is x.name, through __sa_attr for the names builtins.CompatAttrs
// lists, which give builtin values their Python methods.
func (l *lowerer) attr(x syntax.Expr, name string, dot, at pos) syntax.Expr {
	if contract.CompatAttr(name) || name == "__cause__" || contract.ReadableDunder(name) {
		return l.call(contract.HelperAttr, at, x, l.str(name, at))
	}
	return &syntax.DotExpr{X: x, Dot: l.pos(dot), NamePos: l.pos(at), Name: l.ident(name, at)}
}

// index lowers a subscript that is not a slice.
func (l *lowerer) index(x Expr) syntax.Expr {
	if s, ok := x.(*Seq); ok && !s.Paren {
		for _, e := range s.Elts {
			if sl, ok := e.(*Slice); ok {
				l.needs(sl.pos, "multi-dimensional slicing")
			}
		}
	}
	return l.expr(x)
}

func isFloatLit(x Expr) bool {
	switch n := x.(type) {
	case *Num:
		_, ok := n.Val.(float64)
		return ok && !n.Imag
	case *UnaryOp:
		return (n.Op == tMINUS || n.Op == tPLUS) && isFloatLit(n.X)
	case *Paren:
		return isFloatLit(n.X)
	}
	return false
}

func isNumLit(x Expr) bool {
	switch n := x.(type) {
	case *Num:
		return !n.Imag
	case *UnaryOp:
		return (n.Op == tMINUS || n.Op == tPLUS) && isNumLit(n.X)
	case *Paren:
		return isNumLit(n.X)
	}
	return false
}

// isLit reports a literal number or string: an operand that can add only
// a bounded amount to a concatenation.
func isLit(x Expr) bool {
	switch n := unparen(x).(type) {
	case *Str:
		return true
	case *BinOp:
		if n.lit == 0 {
			n.lit = memo(isLit(n.X) && isLit(n.Y))
		}
		return n.lit == 2
	}
	return isNumLit(x)
}

// memo is b as a BinOp memo.
func memo(b bool) uint8 {
	if b {
		return 2
	}
	return 1
}

// boolOpNames are the operators go.starlark.net refuses on a bool and an
// int, which Python computes with the bool as 0 or 1.
var boolOpNames = map[tokKind]string{
	tMINUS: "-", tSLASH: "/", tSLASHSLASH: "//", tPERCENT: "%", tAMP: "&",
	tPIPE: "|", tCARET: "^", tLTLT: "<<", tGTGT: ">>", tPLUS: "+", tSTAR: "*",
}

// mayBeBool reports expressions whose value is a bool whenever it is
// not an error: comparisons, not, True and False, and the builtins and
// methods that answer yes or no. A variable holding a bool is not seen;
// go.starlark.net then refuses the arithmetic with a TypeError, never a
// wrong number.
func mayBeBool(x Expr) bool {
	switch n := unparen(x).(type) {
	case *Const:
		return n.Kind == kwTrue || n.Kind == kwFalse
	case *Compare:
		return true
	case *UnaryOp:
		return n.Op == kwNot
	case *BoolOp:
		return mayBeBool(n.X) || mayBeBool(n.Y)
	case *IfExp:
		return mayBeBool(n.True) || mayBeBool(n.False)
	case *Call:
		switch f := n.Fn.(type) {
		case *Name:
			switch f.ID {
			case "bool", "isinstance", "issubclass", "callable", "hasattr", "any", "all":
				return true
			}
		case *Attr:
			switch f.Name {
			case "startswith", "endswith", "isdigit", "isalpha", "isalnum", "isspace",
				"isupper", "islower", "istitle", "isdecimal", "isnumeric", "isidentifier",
				"isdisjoint", "issubset", "issuperset", "is_integer", "isprintable":
				return true
			}
		}
	}
	return false
}

// boolBinop lowers x op y through __sa_binop when an operand may be a
// bool, or returns nil.
func (l *lowerer) boolBinop(op tokKind, x, y Expr, at pos) syntax.Expr {
	name, ok := boolOpNames[op]
	if !ok || !(mayBeBool(x) || mayBeBool(y)) {
		return nil
	}
	return l.call(contract.HelperBinop, at, l.str(name, at), l.expr(x), l.expr(y))
}

// plus is x + y guarded against concatenation past the memory budget:
// guard[x][y], where guard is builtins.HelperPlus or HelperIPlus (see
// builtins/add.go for why it is not a call).
func (l *lowerer) plus(guard string, x, y syntax.Expr, at pos) syntax.Expr {
	return l.indexExpr(l.indexExpr(l.ident(guard, at), at, x, at), at, y, at)
}

func (l *lowerer) binOp(n *BinOp) syntax.Expr {
	if e := l.boolBinop(n.Op, n.X, n.Y, n.pos); e != nil {
		return e
	}
	switch n.Op {
	case tPLUS:
		// Concatenation can double a value in one step (s = s + s),
		// faster than the engine's periodic memory check: guard it unless
		// an operand is a literal.
		if !isLit(n.X) && !isLit(n.Y) && !(l.knownNumber(n.X) && l.knownNumber(n.Y)) {
			return l.plus(contract.HelperPlus, l.expr(n.X), l.expr(n.Y), n.pos)
		}
	case tPERCENT:
		// Python's printf-style formatting (go.starlark.net's %s prints
		// Starlark reprs); a numeric right operand of anything but a
		// string literal is arithmetic: CPython's remainder (the guard),
		// unless both operands are ints, which go.starlark.net divides
		// as Python does.
		if _, format := unparen(n.X).(*Str); format || !isNumLit(n.Y) {
			return l.call(contract.HelperMod, n.pos, l.expr(n.X), l.expr(n.Y))
		}
		if !(l.knownInt(n.X) && l.knownInt(n.Y)) {
			return l.plus(contract.HelperRem, l.expr(n.X), l.expr(n.Y), n.pos)
		}
	case tSLASHSLASH:
		// go.starlark.net's float // is floor(x / y): 1 // 0.1 is 10.0
		// there, 9.0 in Python.
		if !(l.knownInt(n.X) && l.knownInt(n.Y)) {
			return l.plus(contract.HelperFloorDiv, l.expr(n.X), l.expr(n.Y), n.pos)
		}
	case tLTLT, tGTGT:
		// go.starlark.net refuses shift counts of 512 and more (1 << 100000
		// is Python); the runtime bounds the result and charges it.
		if !smallShift(n.Y) {
			return l.call(contract.HelperBinop, n.pos, l.str(boolOpNames[n.Op], n.pos), l.expr(n.X), l.expr(n.Y))
		}
	case tSTARSTAR:
		return l.call(contract.HelperPow, n.pos, l.expr(n.X), l.expr(n.Y))
	case tAT:
		return l.call(contract.HelperMatmul, n.pos, l.expr(n.X), l.expr(n.Y))
	case tSTAR:
		// Only a product that cannot be a sequence repeat or a huge
		// integer skips the guard.
		if !isFloatLit(n.X) && !isFloatLit(n.Y) && !(isNumLit(n.X) && isNumLit(n.Y)) {
			if l.knownNumber(n.X) && l.knownNumber(n.Y) {
				// Two numbers: only an int product's size is bounded.
				return l.plus(contract.HelperNumMul, l.expr(n.X), l.expr(n.Y), n.pos)
			}
			return l.call(contract.HelperMul, n.pos, l.expr(n.X), l.expr(n.Y))
		}
	}
	return l.binary(binTokens[n.Op], l.expr(n.X), l.expr(n.Y), n.pos)
}

// smallShift reports a shift count that is an int literal from 0 to 63:
// go.starlark.net shifts by it as Python does, and the result grows by
// at most 63 bits a step, which the engine's periodic measurement sees.
func smallShift(x Expr) bool {
	n, ok := unparen(x).(*Num)
	if !ok || n.Imag {
		return false
	}
	v, ok := n.Val.(int64)
	return ok && v >= 0 && v < 64
}

func isSingleton(x Expr) bool {
	c, ok := unparen(x).(*Const)
	return ok && c.Kind != tELLIPSIS
}

// cmp lowers one comparison of already lowered operands.
func (l *lowerer) cmp(op cmpOp, x, y syntax.Expr, px, py Expr) syntax.Expr {
	switch op.Op {
	case kwIs, isNot:
		// None, True and False are equal only to themselves: == is is.
		if isSingleton(px) || isSingleton(py) {
			tok := syntax.EQL
			if op.Op == isNot {
				tok = syntax.NEQ
			}
			return l.binary(tok, x, y, op.pos)
		}
		var c syntax.Expr = l.call(helperIs, op.pos, x, y)
		if op.Op == isNot {
			c = &syntax.UnaryExpr{OpPos: l.pos(op.pos), Op: syntax.NOT, X: c}
		}
		return c
	case tEQ, tNE:
		// Python's ==: 1 == True, nan != nan, lists compared item by item
		// so. A str literal or None operand equals only its own kind in
		// both languages, so it keeps Starlark's faster ==.
		if !plainEq(px) && !plainEq(py) && !numericEq(px, py) && !numericEq(py, px) {
			if op.Op == tNE {
				return l.call(contract.HelperNe, op.pos, x, y)
			}
			return l.call(contract.HelperEq, op.pos, x, y)
		}
	case tLT, tLE, tGT, tGE:
		// Against a number literal the other operand may be a Decimal,
		// a Fraction, a bool or an IntEnum member, which go.starlark.net
		// does not order against numbers, or a float NaN, which it orders
		// above them all: x < 2 is x in K, for a constant K whose
		// membership test compares as CPython does, as fast as
		// Starlark's < (builtins/cmpguard.go). Proven numbers are no
		// exception, as they may be NaN.
		if isNumLit(px) != isNumLit(py) {
			if isNumLit(px) {
				return l.binary(syntax.IN, y, l.cmpConst(op, px, true), op.pos)
			}
			return l.binary(syntax.IN, x, l.cmpConst(op, py, false), op.pos)
		}
		// Any other pair but two ints or a str literal (against which
		// only a str compares) goes through the guard of op, which
		// compares as CPython does (builtins/core/fast_cmp.go).
		if !isNumLit(px) && !isStrLit(px) && !isStrLit(py) && !(l.knownInt(px) && l.knownInt(py)) {
			return l.plus(cmpGuards[op.Op], x, y, op.pos)
		}
	}
	return l.binary(cmpTokens[op.Op], x, y, op.pos)
}

// CmpConstPrefix begins the names of the comparison constants a module's
// prologue binds. A name is derived from the comparison and the literal,
// and the executor's runtime makes one constant per content, so that
// rebinding it in a later step changes nothing (the executor does not
// re-define earlier functions that read it).
const CmpConstPrefix = "__sa_k_"

// cmpConst returns the name of the comparison constant for op with the
// number literal lit on the left (litLeft) or the right, declaring it for
// the prologue.
func (l *lowerer) cmpConst(op cmpOp, lit Expr, litLeft bool) *syntax.Ident {
	side, onLeft := "_r_", "False"
	if litLeft {
		side, onLeft = "_l_", "True"
	}
	var b strings.Builder
	b.WriteString(CmpConstPrefix + cmpConstOps[op.Op] + side)
	writeLiteralName(&b, lit)
	name := b.String()
	if !slices.ContainsFunc(l.consts, func(c syntax.Stmt) bool {
		return c.(*syntax.AssignStmt).LHS.(*syntax.Ident).Name == name
	}) {
		at := lit.at()
		k := l.call(contract.HelperCmpConst, at, l.str(cmpConstSyms[op.Op], at), l.expr(lit), l.ident(onLeft, at))
		l.consts = append(l.consts, l.assign(l.ident(name, at), k, at))
	}
	return l.ident(name, op.pos)
}

// writeLiteralName writes the number literal x as identifier characters:
// its text with '.', '+' and '-' (signs included) as 'd', 'p' and 'm'.
func writeLiteralName(b *strings.Builder, x Expr) {
	switch n := x.(type) {
	case *Paren:
		writeLiteralName(b, n.X)
	case *UnaryOp:
		sign := byte('+')
		if n.Op == tMINUS {
			sign = '-'
		}
		b.WriteByte(literalNameChar(sign))
		writeLiteralName(b, n.X)
	case *Num:
		for _, c := range []byte(n.Raw) {
			b.WriteByte(literalNameChar(c))
		}
	}
}

func literalNameChar(c byte) byte {
	switch c {
	case '.':
		return 'd'
	case '+':
		return 'p'
	case '-':
		return 'm'
	}
	return c
}

func isStrLit(x Expr) bool {
	s, ok := unparen(x).(*Str)
	return ok && !s.Bytes
}

var (
	cmpGuards    = map[tokKind]string{tLT: contract.HelperLt, tLE: contract.HelperLe, tGT: contract.HelperGt, tGE: contract.HelperGe}
	cmpConstOps  = map[tokKind]string{tLT: "lt", tLE: "le", tGT: "gt", tGE: "ge"}
	cmpConstSyms = map[tokKind]string{tLT: "<", tLE: "<=", tGT: ">", tGE: ">="}
)

// numericEq reports a number literal compared with an expression that
// cannot be a bool (i % 3 == 0, len(xs) == 0): go.starlark.net's == is
// then Python's, NaN included, and the comparison stays native, as fast
// as Starlark's.
func numericEq(lit, other Expr) bool {
	return isNumLit(lit) && notBool(other)
}

// notBool reports expressions whose value is never a bool: arithmetic
// (bools become ints in it) and the builtins and methods that count.
func notBool(x Expr) bool {
	switch n := unparen(x).(type) {
	case *Num, *Str:
		return true
	case *BinOp:
		switch n.Op {
		case tPLUS, tMINUS, tSTAR, tSLASH, tSLASHSLASH, tPERCENT, tSTARSTAR, tLTLT, tGTGT:
			return true
		}
	case *UnaryOp:
		return n.Op != kwNot
	case *Call:
		switch f := n.Fn.(type) {
		case *Name:
			switch f.ID {
			case "len", "int", "float", "ord", "abs", "round", "sum", "str", "repr", "hash":
				return true
			}
		case *Attr:
			switch f.Name {
			case "count", "index", "find", "rfind", "bit_length":
				return true
			}
		}
	}
	return false
}

// plainEq reports operands for which go.starlark.net's == is Python's
// whatever the other operand: str and bytes literals and None.
func plainEq(x Expr) bool {
	switch n := unparen(x).(type) {
	case *Str:
		return true
	case *Const:
		return n.Kind == kwNone
	}
	return false
}

// compare lowers a comparison chain. a < b < c is a < b and b < c with b
// evaluated once: operands that are not simple are bound to parameters
// of a lambda called on the spot, so that evaluation order and
// short-circuiting stay Python's.
func (l *lowerer) compare(n *Compare) syntax.Expr {
	if len(n.Ops) == 1 {
		return l.cmp(n.Ops[0], l.expr(n.X), l.expr(n.Ys[0]), n.X, n.Ys[0])
	}
	return l.chain(n, 0, n.X, nil)
}

// chain lowers n.Ops[i:] whose left operand is left (a Python
// expression) or, when lowered is non-nil, the already lowered simple
// expression lowered.
func (l *lowerer) chain(n *Compare, i int, left Expr, lowered syntax.Expr) syntax.Expr {
	op, right := n.Ops[i], n.Ys[i]
	if i == len(n.Ops)-1 {
		if lowered == nil {
			lowered = l.expr(left)
		}
		return l.cmp(op, lowered, l.expr(right), left, right)
	}
	var params, args []syntax.Expr
	bind := func(x Expr) syntax.Expr {
		if simple(x) {
			return l.expr(x)
		}
		t := l.temp()
		params = append(params, l.ident(t, x.at()))
		args = append(args, l.expr(x))
		return l.ident(t, x.at())
	}
	if lowered == nil {
		lowered = bind(left)
	}
	r := bind(right)
	body := l.binary(syntax.AND, l.cmp(op, lowered, r, left, right), l.chain(n, i+1, right, r), op.pos)
	if params == nil {
		return body
	}
	at := l.pos(op.pos)
	return &syntax.CallExpr{
		Fn:     &syntax.ParenExpr{Lparen: at, X: &syntax.LambdaExpr{Lambda: at, Params: params, Body: body}, Rparen: at},
		Lparen: at, Args: args, Rparen: at,
	}
}

// listy reports expressions whose value Starlark can iterate as Python
// would, so a for loop need not go through __sa_iter.
func listy(x Expr) bool {
	switch n := unparen(x).(type) {
	case *Seq:
		return n.Kind != tLBRACE
	case *Comp:
		return n.Kind == tLBRACK
	case *Call:
		switch f := n.Fn.(type) {
		case *Name:
			// Not enumerate or zip: they may iterate a generator, whose
			// exception a native loop would not see (see loopOperand).
			switch f.ID {
			case "range", "sorted", "list", "reversed", "tuple":
				return true
			}
		case *Attr:
			switch f.Name {
			// Not a dict's views: the runtime's loop lets the body assign
			// existing keys, as CPython does, where a native loop locks
			// the dict.
			case "split", "splitlines":
				return true
			}
		}
	}
	return false
}

// spread lowers elements that may contain *x into a list expression: a
// literal list, or a concatenation of lists.
func (l *lowerer) spread(elts []Expr, at, end pos) (syntax.Expr, bool) {
	var out syntax.Expr
	var run []syntax.Expr
	starred := false
	add := func(e syntax.Expr) {
		if out == nil {
			out = e
		} else {
			// [*x, *x] can double a value in one step: guarded like +.
			out = l.plus(contract.HelperPlus, out, e, at)
		}
	}
	flush := func() {
		if run != nil {
			add(&syntax.ListExpr{Lbrack: l.pos(at), List: run, Rbrack: l.pos(end)})
			run = nil
		}
	}
	for _, e := range elts {
		s, ok := e.(*Starred)
		if !ok {
			run = append(run, l.expr(e))
			continue
		}
		starred = true
		flush()
		if sq, ok := unparen(s.X).(*Seq); ok && sq.Kind == tLBRACK && !hasStarElts(sq.Elts) {
			add(l.expr(sq))
		} else {
			add(l.listOf(l.star(s.X), s.pos))
		}
	}
	flush()
	if out == nil {
		out = &syntax.ListExpr{Lbrack: l.pos(at), Rbrack: l.pos(end)}
	}
	return out, starred
}

func hasStarElts(elts []Expr) bool {
	for _, e := range elts {
		if _, ok := e.(*Starred); ok {
			return true
		}
	}
	return false
}

func (l *lowerer) seq(n *Seq) syntax.Expr {
	if !hasStarElts(n.Elts) {
		list := l.exprs.list(len(n.Elts))
		if list == nil {
			list = []syntax.Expr{}
		}
		for i, e := range n.Elts {
			list[i] = l.expr(e)
		}
		switch n.Kind {
		case tLBRACK:
			return &syntax.ListExpr{Lbrack: l.pos(n.pos), List: list, Rbrack: l.pos(n.End)}
		case tLBRACE:
			return l.call("set", n.pos, &syntax.ListExpr{Lbrack: l.pos(n.pos), List: list, Rbrack: l.pos(n.End)})
		}
		t := &syntax.TupleExpr{List: list}
		if n.Paren || len(list) == 0 {
			t.Lparen, t.Rparen = l.pos(n.pos), l.pos(n.End)
		}
		return t
	}
	list, _ := l.spread(n.Elts, n.pos, n.End)
	switch n.Kind {
	case tLPAREN:
		return l.call("tuple", n.pos, list)
	case tLBRACE:
		return l.call("set", n.pos, list)
	}
	return list
}

func (l *lowerer) dict(n *Dict) syntax.Expr {
	unpack := false
	for _, k := range n.Keys {
		if k == nil {
			unpack = true
		}
	}
	if !unpack && distinctLiteralKeys(n.Keys) {
		d := l.dicts.next()
		d.Lbrace, d.Rbrace, d.List = l.pos(n.pos), l.pos(n.End), l.exprs.list(len(n.Keys))
		if d.List == nil {
			d.List = []syntax.Expr{}
		}
		entries := l.entries.list(len(n.Keys))
		for i, k := range n.Keys {
			entries[i] = syntax.DictEntry{Key: l.expr(k), Colon: l.pos(k.at()), Value: l.expr(n.Values[i])}
			d.List[i] = &entries[i]
		}
		return d
	}
	// {**a, k: v} becomes
	// {__sa_k: __sa_v for __sa_k, __sa_v in [p for p in a.items()] + [(k, v)]}:
	// later keys win, in evaluation order, without naming dict or list.
	// So does a literal whose keys may repeat ({k: 1, k: 2}), which
	// Starlark's literal refuses ("duplicate key") where Python keeps the
	// last value at the first key's place.
	var out syntax.Expr
	var run []syntax.Expr
	add := func(e syntax.Expr) {
		if out == nil {
			out = e
		} else {
			out = l.binary(syntax.PLUS, out, e, n.pos)
		}
	}
	flush := func() {
		if run != nil {
			add(&syntax.ListExpr{Lbrack: l.pos(n.pos), List: run, Rbrack: l.pos(n.End)})
			run = nil
		}
	}
	for i, k := range n.Keys {
		v := n.Values[i]
		if k == nil {
			flush()
			items := l.attr(l.expr(v), "items", v.at(), v.at())
			add(l.listOf(&syntax.CallExpr{Fn: items, Lparen: l.pos(v.at()), Rparen: l.pos(v.at())}, v.at()))
			continue
		}
		run = append(run, &syntax.TupleExpr{Lparen: l.pos(k.at()), List: []syntax.Expr{l.expr(k), l.expr(v)}, Rparen: l.pos(k.at())})
	}
	flush()
	at := l.pos(n.pos)
	kv := &syntax.TupleExpr{List: []syntax.Expr{l.ident("__sa_k", n.pos), l.ident("__sa_v", n.pos)}}
	return &syntax.Comprehension{
		Curly:   true,
		Lbrack:  at,
		Body:    &syntax.DictEntry{Key: l.ident("__sa_k", n.pos), Colon: at, Value: l.ident("__sa_v", n.pos)},
		Clauses: []syntax.Node{&syntax.ForClause{For: at, Vars: kv, In: at, X: out}},
		Rbrack:  at,
	}
}

// distinctLiteralKeys reports whether the keys of a dict literal cannot
// repeat: at most one, or all int or string literals of distinct values.
func distinctLiteralKeys(keys []Expr) bool {
	if len(keys) < 2 {
		return true
	}
	type strKey struct {
		s     string
		bytes bool
	}
	seen := make(map[any]bool, len(keys))
	for _, k := range keys {
		var key any
		switch k := k.(type) {
		case *Str:
			key = strKey{k.Val, k.Bytes}
		case *Num:
			v, ok := k.Val.(int64)
			if !ok || k.Imag {
				return false
			}
			key = v
		default:
			return false
		}
		if seen[key] {
			return false
		}
		seen[key] = true
	}
	return true
}

func (l *lowerer) comp(n *Comp) syntax.Expr {
	if n.Kind == tLPAREN {
		return l.genexpr(n)
	}
	c := &syntax.Comprehension{Lbrack: l.pos(n.pos), Rbrack: l.pos(n.End)}
	// The first iterable is evaluated in the enclosing scope (in Python
	// and in Starlark); the rest of the comprehension has its own.
	first, check := l.loopOperand(n.Clauses[0].Iter, false)
	cs := l.newScope(scopeLocal)
	cs.comp = true
	for _, cl := range n.Clauses {
		bindTargets(cl.Target, cs.names)
	}
	l.scopes = append(l.scopes, cs)
	defer func() { l.scopes = l.scopes[:len(l.scopes)-1] }()
	nclauses := len(n.Clauses)
	for _, cl := range n.Clauses {
		nclauses += len(cl.Ifs)
	}
	c.Clauses = make([]syntax.Node, 0, nclauses)
	for i, cl := range n.Clauses {
		if cl.Async {
			l.needs(cl.pos, "async comprehensions")
		}
		iter := first
		if i > 0 {
			var checked bool
			iter, checked = l.loopOperand(cl.Iter, false)
			check = check || checked
		}
		if hasStar(cl.Target) {
			// for a, *b in xs  becomes
			// for __sa_t in xs for a, b in [__sa_unstar(__sa_t, 1, 0)]
			tmp := l.temp()
			c.Clauses = append(c.Clauses, &syntax.ForClause{For: l.pos(cl.pos), Vars: l.ident(tmp, cl.pos), In: l.pos(cl.pos), X: iter})
			vars, unstar := l.starTarget(cl.Target, tmp, cl.pos)
			list := &syntax.ListExpr{Lbrack: l.pos(cl.pos), List: []syntax.Expr{unstar}, Rbrack: l.pos(cl.pos)}
			c.Clauses = append(c.Clauses, &syntax.ForClause{For: l.pos(cl.pos), Vars: vars, In: l.pos(cl.pos), X: list})
		} else {
			c.Clauses = append(c.Clauses, &syntax.ForClause{For: l.pos(cl.pos), Vars: l.target(cl.Target), In: l.pos(cl.pos), X: iter})
		}
		for _, cond := range cl.Ifs {
			c.Clauses = append(c.Clauses, &syntax.IfClause{If: l.pos(cond.at()), Cond: l.expr(cond)})
		}
	}
	var out syntax.Expr = c
	if n.Kind == tCOLON {
		c.Curly = true
		c.Body = &syntax.DictEntry{Key: l.expr(n.Elt), Colon: l.pos(n.Elt.at()), Value: l.expr(n.Val)}
	} else {
		c.Body = l.expr(n.Elt)
	}
	if check {
		// An iterator that raised ended a loop of the comprehension.
		out = l.call(contract.HelperLoopCheck, n.pos, out)
	}
	if n.Kind == tLBRACE {
		return l.call("set", n.pos, out)
	}
	return out
}

// starTarget lowers a target with one starred element at its top level
// (a, *b, c) for the value held by temporary tmp: the targets without the
// star, and the __sa_unstar call that splits the value for them.
func (l *lowerer) starTarget(t Expr, tmp string, at pos) (syntax.Expr, syntax.Expr) {
	seq, _ := unparen(t).(*Seq)
	if seq == nil {
		l.needs(at, "this starred target")
	}
	star := -1
	list := make([]syntax.Expr, len(seq.Elts))
	for i, e := range seq.Elts {
		if s, ok := e.(*Starred); ok {
			if star >= 0 {
				panic(bailout{&Error{Line: int(s.Line), Col: int(s.Col), Msg: "multiple starred expressions in assignment"}})
			}
			star = i
			e = s.X
		}
		if hasStar(e) {
			l.needs(e.at(), "a starred target nested in another target")
		}
		list[i] = l.target(e)
	}
	if star < 0 {
		l.needs(at, "a starred target nested in another target")
	}
	vars := &syntax.TupleExpr{Lparen: l.pos(at), List: list, Rparen: l.pos(at)}
	return vars, l.call(contract.HelperUnstar, at, l.ident(tmp, at), l.int(star, at), l.int(len(seq.Elts)-star-1, at))
}

func (l *lowerer) callExpr(n *Call) syntax.Expr {
	if nm, ok := n.Fn.(*Name); ok && nm.ID == "super" {
		return l.super(n)
	}
	c := l.calls.next()
	c.Fn, c.Lparen, c.Rparen = l.expr(n.Fn), l.pos(n.pos), l.pos(n.Rparen)
	// Starlark wants positional, keyword, *args, **kwargs, each at most
	// once. Positional arguments from the first * on become one *args;
	// keywords written after a * move before it when that cannot change
	// what is evaluated first; from the first ** on, keywords and **
	// operands merge, in the order written, into one **kwargs.
	var plain, rest []Expr
	var kws, late []Arg
	sawStar := false
	reordered := false
	for i := range n.Args {
		a := &n.Args[i]
		switch a.Kind {
		case argPos:
			if sawStar {
				rest = append(rest, a.X)
			} else {
				plain = append(plain, a.X)
			}
		case argStar:
			sawStar = true
			rest = append(rest, &Starred{pos: a.X.at(), X: a.X})
			if len(kws) > 0 {
				reordered = true
			}
		case argKw:
			l.checkName(a.Name, a.NamePos)
			if len(late) > 0 {
				late = append(late, *a)
				continue
			}
			if sawStar {
				reordered = true
			}
			kws = append(kws, *a)
		case argStarStar:
			late = append(late, *a)
		}
	}
	if reordered {
		for _, x := range rest {
			if !pure(unstar(x)) {
				for _, k := range kws {
					if !pure(k.X) {
						l.needs(n.pos, "keyword arguments after *args or **kwargs whose order of evaluation matters")
					}
				}
			}
		}
	}
	nargs := len(plain) + len(kws)
	if len(rest) > 0 {
		nargs++
	}
	if len(late) > 0 {
		nargs++
	}
	c.Args = l.exprs.list(nargs)[:0]
	for _, x := range plain {
		c.Args = append(c.Args, l.expr(x))
	}
	for _, k := range kws {
		c.Args = append(c.Args, l.binary(syntax.EQ, l.ident(k.Name, k.NamePos), l.expr(k.X), k.NamePos))
	}
	if len(rest) > 0 {
		var star syntax.Expr
		if s, ok := rest[0].(*Starred); ok && len(rest) == 1 {
			star = l.star(s.X)
		} else {
			star, _ = l.spread(rest, n.pos, n.Rparen)
		}
		c.Args = append(c.Args, &syntax.UnaryExpr{OpPos: l.pos(rest[0].at()), Op: syntax.STAR, X: star})
	}
	if len(late) > 0 {
		c.Args = append(c.Args, &syntax.UnaryExpr{OpPos: l.pos(late[0].X.at()), Op: syntax.STARSTAR, X: l.kwargs(n.Fn, late)})
	}
	return c
}

// kwargs lowers the operand of the one ** a call gets: the ** operands
// and keywords from the first ** on, merged in order by __sa_kwargs when
// there is more than a single ** operand.
func (l *lowerer) kwargs(fn Expr, late []Arg) syntax.Expr {
	if len(late) == 1 {
		return l.expr(late[0].X)
	}
	name := ""
	switch f := unparen(fn).(type) {
	case *Name:
		name = f.ID
	case *Attr:
		name = f.Name
	}
	at := late[0].X.at()
	args := []syntax.Expr{l.str(name, at)}
	for _, a := range late {
		if a.Kind == argStarStar {
			args = append(args, l.expr(a.X))
			continue
		}
		args = append(args, &syntax.TupleExpr{Lparen: l.pos(a.NamePos), List: []syntax.Expr{l.str(a.Name, a.NamePos), l.expr(a.X)}, Rparen: l.pos(a.NamePos)})
	}
	return l.call(contract.HelperKwargs, at, args...)
}

func unstar(x Expr) Expr {
	if s, ok := x.(*Starred); ok {
		return s.X
	}
	return x
}

// fstr lowers f-string parts to a concatenation of literals and
// __sa_fmt(value, conversion, spec) calls.
func (l *lowerer) fstr(parts []fpart, at pos) syntax.Expr {
	var out syntax.Expr
	fields := 0
	for _, p := range parts {
		var e syntax.Expr
		if p.X == nil {
			e = l.str(p.Lit, at)
		} else {
			conv := ""
			if p.Conv != 0 {
				conv = string(p.Conv)
			}
			var spec syntax.Expr = l.str("", at)
			if len(p.Spec) > 0 {
				spec = l.fstr(p.Spec, at)
			}
			e = l.call(contract.HelperFormat, p.X.at(), l.expr(p.X), l.str(conv, at), spec)
		}
		switch {
		case out == nil:
			out = e
		case p.X != nil && fields > 0:
			// Two formatted fields can double a value: f"{s}{s}".
			out = l.plus(contract.HelperPlus, out, e, at)
		default:
			out = l.binary(syntax.PLUS, out, e, at)
		}
		if p.X != nil {
			fields++
		}
	}
	if out == nil {
		return l.str("", at)
	}
	return out
}
