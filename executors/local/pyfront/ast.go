package pyfront

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
		Op   tokKind
		X, Y Expr
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
