package pyfront

import "sync"

// The Python syntax tree produced by the parser. It follows CPython's ast
// module closely enough that the lowering reads like the language
// reference, but keeps only what lowering needs.

// pos is a 1-based source position.
type pos struct{ Line, Col int32 }

func (p pos) at() pos { return p }

type node interface{ at() pos }

// Expressions.
type (
	// Name is an identifier.
	Name struct {
		pos
		ID string
	}
	// Num is a numeric literal: int64, *big.Int or float64; Imag for 1j.
	Num struct {
		pos
		Raw  string
		Val  any
		Imag bool
	}
	// Str is a string or bytes literal (implicit concatenation applied).
	Str struct {
		pos
		Raw   string
		Val   string
		Bytes bool
	}
	// FStr is a string with at least one f-string part.
	FStr struct {
		pos
		Raw   string
		Parts []fpart
	}
	// Const is None, True, False or Ellipsis (tokKind kwNone... tELLIPSIS).
	Const struct {
		pos
		Kind tokKind
	}
	// Attr is X.Name; pos is the name's.
	Attr struct {
		pos
		X    Expr
		Name string
		Dot  pos
	}
	// Subscript is X[Index]; pos is the '['. Index may be a *Slice or a
	// tuple holding slices.
	Subscript struct {
		pos
		X      Expr
		Index  Expr
		Rbrack pos
	}
	// Slice is lo:hi:step inside a subscript.
	Slice struct {
		pos
		Lo, Hi, Step Expr
	}
	// Call is Fn(Args); pos is the '('.
	Call struct {
		pos
		Fn     Expr
		Args   []Arg
		Rparen pos
	}
	// BinOp is X Op Y; pos is the operator's.
	BinOp struct {
		pos
		Op tokKind
		// lit and num memoize isLit and the lowering's knownNumber
		// (0 not computed, 1 false, 2 true): both are asked at every
		// operator of a chain about its operands, and without the memo
		// they re-walk the chain below, quadratic in its length.
		lit, num uint8
		X, Y     Expr
	}
	// UnaryOp is Op X (-, +, ~, not).
	UnaryOp struct {
		pos
		Op tokKind
		X  Expr
	}
	// BoolOp is X and Y, X or Y.
	BoolOp struct {
		pos
		Op   tokKind
		X, Y Expr
	}
	// Compare is X op1 Y1 op2 Y2 ...
	Compare struct {
		pos
		X   Expr
		Ops []cmpOp
		Ys  []Expr
	}
	// IfExp is True if Cond else False.
	IfExp struct {
		pos
		Cond, True, False Expr
	}
	// Lambda is lambda Params: Body.
	Lambda struct {
		pos
		Params []Param
		Body   Expr
	}
	// Seq is a list, tuple or set display (Kind tLBRACK, tLPAREN, tLBRACE).
	Seq struct {
		pos
		Kind  tokKind
		Elts  []Expr
		End   pos
		Paren bool // tuple written with parentheses
	}
	// Dict is a dict display; a nil key marks **value.
	Dict struct {
		pos
		Keys, Values []Expr
		End          pos
	}
	// Comp is a comprehension or generator expression (Kind tLBRACK,
	// tLBRACE for sets, tCOLON for dicts, tLPAREN for generators).
	Comp struct {
		pos
		Kind     tokKind
		Elt, Val Expr // Val only for dicts
		Clauses  []clause
		End      pos
	}
	// Starred is *X.
	Starred struct {
		pos
		X Expr
	}
	// NamedExpr is Target := Value.
	NamedExpr struct {
		pos
		Target *Name
		Value  Expr
	}
	// Yield is yield X or yield from X.
	Yield struct {
		pos
		X    Expr
		From bool
	}
	// Await is await X.
	Await struct {
		pos
		X Expr
	}
	// Paren is a parenthesized expression, kept so targets and keyword
	// arguments can tell (a)=1 from a=1.
	Paren struct {
		pos
		X Expr
	}
)

// Expr is a Python expression.
type Expr = node

// fpart is one piece of an f-string: a literal or a replacement field.
type fpart struct {
	Lit  string
	X    Expr // nil for a literal
	Conv byte // 0, 'r', 's' or 'a'
	Spec []fpart
}

type cmpOp struct {
	pos
	Op tokKind // tLT... tNE, kwIn, kwIs, and notIn, isNot
}

// Comparison operators written with two keywords.
const (
	notIn tokKind = 250
	isNot tokKind = 251
)

type clause struct {
	pos
	Target, Iter Expr
	Ifs          []Expr
	Async        bool
}

// Arg is one argument of a call.
type Arg struct {
	Kind    argKind
	Name    string // keyword
	NamePos pos
	X       Expr
}

type argKind uint8

const (
	argPos argKind = iota
	argStar
	argKw
	argStarStar
)

// Param is one parameter of a def or lambda.
type Param struct {
	pos
	Kind    paramKind
	Name    string
	Default Expr
}

type paramKind uint8

const (
	paramNormal   paramKind = iota
	paramStar               // *args, or bare * when Name == ""
	paramStarStar           // **kwargs
	paramSlash              // /
)

// Statements.
type (
	// ExprStmt is an expression evaluated for its effect.
	ExprStmt struct {
		pos
		X Expr
	}
	// Assign is T1 = T2 = ... = Value.
	Assign struct {
		pos     // of the first '='
		Targets []Expr
		Value   Expr
	}
	// AugAssign is Target op= Value.
	AugAssign struct {
		pos
		Op     tokKind // the binary operator
		Target Expr
		Value  Expr
	}
	// AnnAssign is Target: annotation [= Value].
	AnnAssign struct {
		pos
		Target Expr
		Value  Expr // may be nil
	}
	// If is if/elif/else; elif is an If alone in Else.
	If struct {
		pos
		Cond Expr
		Body []Stmt
		Else []Stmt
	}
	// For is a for loop.
	For struct {
		pos
		Target, Iter Expr
		Body, Else   []Stmt
		Async        bool
	}
	// While is a while loop.
	While struct {
		pos
		Cond       Expr
		Body, Else []Stmt
	}
	// FuncDef is a def statement.
	FuncDef struct {
		pos
		Name       string
		NamePos    pos
		Params     []Param
		Body       []Stmt
		Decorators []Expr
		Async      bool
	}
	// ClassDef is a class statement.
	ClassDef struct {
		pos
		Name       string
		Bases      []Arg
		Body       []Stmt
		Decorators []Expr
	}
	// Return is a return statement.
	Return struct {
		pos
		X Expr
	}
	// Simple is pass, break or continue (Kind kwPass...).
	Simple struct {
		pos
		Kind tokKind
	}
	// ImportStmt is import a.b [as c], ...
	ImportStmt struct {
		pos
		Names []alias
	}
	// ImportFrom is from [.]*module import names.
	ImportFrom struct {
		pos
		Module string
		Level  int
		Names  []alias // a single "*" for import *
	}
	// Global is global or nonlocal names.
	Global struct {
		pos
		Nonlocal bool
		Names    []string
	}
	// Del is del targets.
	Del struct {
		pos
		Targets []Expr
	}
	// Assert is assert Test[, Msg].
	Assert struct {
		pos
		Test, Msg Expr
	}
	// Raise is raise [Exc [from Cause]].
	Raise struct {
		pos
		Exc, Cause Expr
	}
	// Try is try/except/else/finally.
	Try struct {
		pos
		Body     []Stmt
		Handlers []handler
		Else     []Stmt
		Finally  []Stmt
	}
	// With is a with statement.
	With struct {
		pos
		Items []withItem
		Body  []Stmt
		Async bool
	}
	// Match is a match statement, recognised but not parsed further.
	Match struct {
		pos
	}
)

// Stmt is a Python statement.
type Stmt = node

type alias struct {
	pos
	Name, As string
}

type handler struct {
	pos
	Type Expr
	Name string
	Body []Stmt
}

type withItem struct {
	Ctx, Var Expr
}

// arena hands out the parser's nodes and slices from slabs sized from the
// token counts, so a parse makes a few large allocations rather than one
// per node, and none once the pool holds an arena whose slabs are large
// enough. Lists are collected on the scratch stacks and copied into a
// slab with their capacity capped, so appending to one never overwrites
// its neighbour. No node outlives the lowering (the lowered tree holds
// strings and numbers of the parser's nodes, never the nodes), so the
// slabs are cleared and reused by the next parse. The arena also holds
// the memory the lowering needs only while it runs, reused the same way.
type arena struct {
	names     []Name
	nums      []Num
	strs      []Str
	consts    []Const
	calls     []Call
	attrs     []Attr
	subs      []Subscript
	binops    []BinOp
	compares  []Compare
	seqs      []Seq
	dicts     []Dict
	comps     []Comp
	exprStmts []ExprStmt
	assigns   []Assign
	returns   []Return
	exprs     []Expr
	stmts     []Stmt
	args      []Arg
	cmpOps    []cmpOp
	clauses   []clause
	fparts    []fpart
	fstrs     []FStr
	params    []Param
	lambdas   []Lambda
	parens    []Paren
	funcDefs  []FuncDef
	fors      []For
	ifs       []If
	imports   []ImportStmt
	froms     []ImportFrom
	aliases   []alias

	toks     []token // the module's tokens, which no node refers to
	indents  []indent
	brackets []token
	estack   []Expr
	sstack   []Stmt
	astack   []Arg
	fstack   []fpart
	// fieldToks is a token buffer for f-string fields, free for reuse.
	fieldToks []token

	// What the parser saw: the module's token count (sizeSlabs) and
	// which expressions it holds at all.
	ntoks int
	has   contents

	// Memory of the lowering, which ends before the arena goes back to
	// the pool.
	lower    lowerer
	bound    map[string]bool // the names the program binds (boundNames)
	bindings []binding       // numericNames
	numeric  map[string]bool // numericNames
	scratch  map[string]bool // a set for one step of the lowering, emptied after
	scopes   []*scope        // newScope
	nscopes  int             // how many of scopes are in use
	// leaves holds the unused tails of the lowering's last blocks of
	// leaves, which the next lowering may use (slab).
	leaves leafSlabs
}

// slabGrow is the least size of a slab allocated when the counted one
// runs out (f-string fields, whose tokens were not counted). It doubles
// the slab, so that a pooled arena soon needs no more of them.
const slabGrow = 16

func take[T any](slab *[]T) *T {
	s := *slab
	if len(s) == cap(s) {
		s = make([]T, 0, max(slabGrow, 2*cap(s)))
	}
	s = s[:len(s)+1]
	*slab = s
	return &s[len(s)-1]
}

// takeList copies src into slab and returns the copy, nil if src is empty
// (as appending to a nil slice would leave it).
func takeList[T any](slab *[]T, src []T) []T {
	n := len(src)
	if n == 0 {
		return nil
	}
	s := *slab
	if cap(s)-len(s) < n {
		s = make([]T, 0, max(n, slabGrow, 2*cap(s)))
	}
	l := len(s)
	s = s[:l+n]
	out := s[l : l+n : l+n]
	copy(out, src)
	*slab = s
	return out
}

// arenaPool keeps arenas with their slabs, scratch stacks and token
// buffer. An arena goes back only once nothing refers to its nodes.
var arenaPool = sync.Pool{New: func() any { return new(arena) }}

// getArena returns an arena from the pool.
func getArena() *arena {
	return arenaPool.Get().(*arena)
}

// putArena clears the arena's slabs and returns it to the pool; the
// syntax tree it held must be dropped.
func putArena(a *arena) {
	if cap(a.toks) > 1<<16 {
		return // keep no huge buffers
	}
	a.names = reset(a.names)
	a.nums = reset(a.nums)
	a.strs = reset(a.strs)
	a.consts = reset(a.consts)
	a.calls = reset(a.calls)
	a.attrs = reset(a.attrs)
	a.subs = reset(a.subs)
	a.binops = reset(a.binops)
	a.compares = reset(a.compares)
	a.seqs = reset(a.seqs)
	a.dicts = reset(a.dicts)
	a.comps = reset(a.comps)
	a.exprStmts = reset(a.exprStmts)
	a.assigns = reset(a.assigns)
	a.returns = reset(a.returns)
	a.exprs = reset(a.exprs)
	a.stmts = reset(a.stmts)
	a.args = reset(a.args)
	a.cmpOps = reset(a.cmpOps)
	a.clauses = reset(a.clauses)
	a.fparts = reset(a.fparts)
	a.fstrs = reset(a.fstrs)
	a.params = reset(a.params)
	a.lambdas = reset(a.lambdas)
	a.parens = reset(a.parens)
	a.funcDefs = reset(a.funcDefs)
	a.fors = reset(a.fors)
	a.ifs = reset(a.ifs)
	a.imports = reset(a.imports)
	a.froms = reset(a.froms)
	a.aliases = reset(a.aliases)
	a.toks = a.toks[:0]
	a.indents = a.indents[:0]
	a.brackets = a.brackets[:0]
	a.estack = reset(a.estack[:cap(a.estack)])
	a.sstack = reset(a.sstack[:cap(a.sstack)])
	a.astack = reset(a.astack[:cap(a.astack)])
	a.fstack = reset(a.fstack[:cap(a.fstack)])
	a.fieldToks = a.fieldToks[:0]
	clear(a.bound)
	clear(a.scratch)
	a.resetScopes()
	a.lower.reset()
	arenaPool.Put(a)
}

// contents tells which expressions that the lowering's analyses look
// for a module contains at all, so that it can spare itself the walks
// that would find none.
type contents struct {
	walrus, yield, lambda, comp bool
	// inplace: a def of an in-place operator method (augAssign's guard).
	inplace bool
	// nested: a def inside a def (lateFreeReads).
	nested bool
}

// reset empties a slab or stack, zeroing what it held: take hands out
// elements that its callers may only partly set, and the pool should
// keep nothing alive.
func reset[T any](s []T) []T {
	clear(s)
	return s[:0]
}

// reuse returns slab emptied if it has room for n elements, else a new
// slab of that size.
func reuse[T any](slab []T, n int32) []T {
	if int(n) <= cap(slab) {
		return slab[:0]
	}
	return make([]T, 0, n)
}

// size sizes the slabs from the tokens of a module.
func (a *arena) size(toks []token) {
	var n [256]int32
	a.ntoks = len(toks)
	a.has = contents{}
	fstrs := int32(0)
	for i := range toks {
		n[toks[i].kind]++
		if toks[i].flags&strF != 0 {
			fstrs++
		}
	}
	bin := n[tPLUS] + n[tMINUS] + n[tSTAR] + n[tSTARSTAR] + n[tSLASH] + n[tSLASHSLASH] +
		n[tPERCENT] + n[tAMP] + n[tPIPE] + n[tCARET] + n[tLTLT] + n[tGTGT] + n[tAT]
	cmp := n[tLT] + n[tGT] + n[tLE] + n[tGE] + n[tEQ] + n[tNE] + max(n[kwIn]-n[kwFor], 0) + n[kwIs]
	a.names = reuse(a.names, n[tNAME])
	a.nums = reuse(a.nums, n[tNUMBER])
	a.strs = reuse(a.strs, n[tSTRING])
	a.consts = reuse(a.consts, n[kwNone]+n[kwTrue]+n[kwFalse]+n[tELLIPSIS])
	a.calls = reuse(a.calls, n[tLPAREN])
	a.attrs = reuse(a.attrs, n[tDOT])
	a.subs = reuse(a.subs, n[tLBRACK])
	a.binops = reuse(a.binops, bin)
	a.compares = reuse(a.compares, cmp)
	a.seqs = reuse(a.seqs, n[tLBRACK]/2+n[tCOMMA]/8)
	a.dicts = reuse(a.dicts, n[tLBRACE])
	a.comps = reuse(a.comps, n[kwFor])
	a.exprStmts = reuse(a.exprStmts, n[tNEWLINE]/4+n[tSEMI])
	a.assigns = reuse(a.assigns, n[tASSIGN])
	a.returns = reuse(a.returns, n[kwReturn])
	a.exprs = reuse(a.exprs, n[tCOMMA]+n[tLBRACK]+n[tLBRACE]+n[tASSIGN]+cmp+n[kwIf]+8)
	a.stmts = reuse(a.stmts, n[tNEWLINE]+n[tSEMI]+2)
	a.args = reuse(a.args, n[tCOMMA]/2+n[tLPAREN])
	a.fparts = reuse(a.fparts, 6*fstrs)
	a.cmpOps = reuse(a.cmpOps, cmp)
	a.clauses = reuse(a.clauses, n[kwFor])
	a.fstrs = reuse(a.fstrs, fstrs)
	a.params = reuse(a.params, 2*(n[kwDef]+n[kwLambda])+n[tCOMMA]/4)
	a.lambdas = reuse(a.lambdas, n[kwLambda])
	a.parens = reuse(a.parens, n[tLPAREN]/4)
	a.funcDefs = reuse(a.funcDefs, n[kwDef])
	a.fors = reuse(a.fors, n[kwFor])
	a.ifs = reuse(a.ifs, n[kwIf]+n[kwElif])
	a.imports = reuse(a.imports, n[kwImport])
	a.froms = reuse(a.froms, n[kwFrom])
	a.aliases = reuse(a.aliases, n[kwImport]+n[tCOMMA]/8)
}
