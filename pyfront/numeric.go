package pyfront

// Numeric inference. The memory guard on a + b (__sa_plus[a][b]) is
// needed only when both operands could be sequences: a concatenation can
// double a value in one interpreter step. In a tight arithmetic loop the
// guard's extra operator shows, so the lowering skips it when both
// operands are known to be numbers.
//
// A function's local variable is known numeric when every binding of it in
// the function gives it a number, assuming the same of the other numeric
// candidates (the greatest fixpoint, which admits accumulators such as
// t = 0; t += i). This is sound inside a function because a local has no
// value but those its bindings give it: reading it before assignment is an
// error. It is not sound at module level, where a name may still hold a
// value from an earlier step, so module-level names are never inferred.

// numericBuiltins return numbers whatever their arguments (or fail).
var numericBuiltins = map[string]bool{
	// abs and round are left out: they return whatever a class's
	// __abs__ or __round__ returns.
	"len": true, "int": true, "float": true, "ord": true, "bool": true,
}

// numericNames returns the locals of a function body that hold only
// numbers; with strict, only numbers that are not bools (the operands
// go.starlark.net adds as Python does). shadowed tells the names bound
// anywhere in the program or in the executor's globals, whose builtins
// cannot be trusted. The work is done in a's scratch memory; the result
// is nil when no local is numeric.

func numericNames(params []Param, body []Stmt, shadowed func(string) bool, strict bool, a *arena) map[string]bool {
	return inferNames(params, body, shadowed, strict, false, a)
}

// intNames returns the locals of a function body that only ever hold ints
// (never bools or floats): comparisons, // and % of two of them are
// go.starlark.net's own, exactly Python's.
func intNames(params []Param, body []Stmt, shadowed func(string) bool, a *arena) map[string]bool {
	return inferNames(params, body, shadowed, true, true, a)
}

func inferNames(params []Param, body []Stmt, shadowed func(string) bool, strict, ints bool, a *arena) map[string]bool {
	c := bindingCollector{list: a.bindings[:0]}
	for _, p := range params {
		c.unknown(p.Name)
	}
	var walrus func(Expr)
	if a.has.walrus {
		walrus = c.walrus
	}
	walkStmts(body, walrus, func(s Stmt) { c.stmt(s, shadowed) })
	bindings := c.list
	defer func() { a.bindings = reset(bindings) }()

	// The candidates: names all of whose bindings have a known value.
	if a.numeric == nil {
		a.numeric = map[string]bool{}
	}
	work := a.numeric
	defer clear(work)
	for _, b := range bindings {
		if _, seen := work[b.name]; !seen {
			work[b.name] = true
		}
		if b.value == nil {
			work[b.name] = false
		}
	}
	// Drop candidates with a binding that is not numeric given the
	// others, until none changes: the greatest fixpoint, which any
	// order of visits reaches.
	known := func(n string) bool { return work[n] }
	for changed := true; changed; {
		changed = false
		for i := range bindings {
			if b := &bindings[i]; work[b.name] && !b.holds(known, shadowed, strict, ints) {
				work[b.name] = false
				changed = true
			}
		}
	}
	var numeric map[string]bool
	for name, ok := range work {
		if ok {
			if numeric == nil {
				numeric = map[string]bool{}
			}
			numeric[name] = true
		}
	}
	return numeric
}

// binding is one binding of a local that numericNames considers: name
// = value (nil for a value of unknown type), or with aug set, name aug=
// value.
type binding struct {
	name   string
	value  Expr
	aug    tokKind
	target *Name // with aug
}

// holds reports whether the binding gives its name a number (with ints,
// an int).
func (b *binding) holds(known, shadowed func(string) bool, strict, ints bool) bool {
	x := b.value
	if b.aug != 0 {
		x = &BinOp{Op: b.aug, X: b.target, Y: b.value}
	}
	if ints {
		return intExpr(x, known, shadowed)
	}
	return isNumeric(x, known, shadowed, strict)
}

// intExpr reports whether x always evaluates to an int (never a bool or
// a float), given which names are known to hold ints.
func intExpr(x Expr, known func(string) bool, shadowed func(string) bool) bool {
	switch x := unparen(x).(type) {
	case *Num:
		_, isFloat := x.Val.(float64)
		return !x.Imag && !isFloat
	case *Name:
		return known(x.ID)
	case *UnaryOp:
		return x.Op != kwNot && intExpr(x.X, known, shadowed)
	case *BinOp:
		switch x.Op {
		case tPLUS, tMINUS, tSTAR, tSLASHSLASH, tPERCENT, tLTLT, tGTGT, tAMP, tPIPE, tCARET:
			return intExpr(x.X, known, shadowed) && intExpr(x.Y, known, shadowed)
		}
	case *BoolOp:
		return intExpr(x.X, known, shadowed) && intExpr(x.Y, known, shadowed)
	case *IfExp:
		return intExpr(x.True, known, shadowed) && intExpr(x.False, known, shadowed)
	case *Call:
		fn, ok := x.Fn.(*Name)
		return ok && (fn.ID == "len" || fn.ID == "int" || fn.ID == "ord") && !shadowed(fn.ID)
	}
	return false
}

// rangeItem stands for the ints a for loop over range() binds.
var rangeItem Expr = &Num{Val: int64(0)}

// bindingCollector gathers the bindings of a function body for
// numericNames, visiting each statement and expression once (walkStmts
// does the descent).
type bindingCollector struct {
	list []binding
}

func (c *bindingCollector) unknown(name string) {
	c.list = append(c.list, binding{name: name})
}

func (c *bindingCollector) target(t Expr, value Expr) {
	switch t := unparen(t).(type) {
	case *Name:
		c.list = append(c.list, binding{name: t.ID, value: value})
	case *Seq:
		for _, e := range t.Elts {
			c.target(unstar(e), nil)
		}
	}
}

// walrus records the targets of assignment expressions anywhere in the
// statements' expressions.
func (c *bindingCollector) walrus(x Expr) {
	if w, ok := x.(*NamedExpr); ok {
		c.unknown(w.Target.ID)
	}
}

func (c *bindingCollector) stmt(s Stmt, shadowed func(string) bool) {
	switch s := s.(type) {
	case *Assign:
		for _, t := range s.Targets {
			c.target(t, s.Value)
		}
	case *AugAssign:
		if n, ok := unparen(s.Target).(*Name); ok {
			c.list = append(c.list, binding{name: n.ID, value: s.Value, aug: s.Op, target: n})
		}
	case *AnnAssign:
		if s.Value != nil {
			c.target(s.Target, s.Value)
		}
	case *For:
		if isRangeCall(s.Iter, shadowed) {
			c.target(s.Target, rangeItem)
		} else {
			c.target(s.Target, nil)
		}
	case *Try:
		for _, h := range s.Handlers {
			if h.Name != "" {
				c.unknown(h.Name)
			}
		}
	case *With:
		for _, it := range s.Items {
			if it.Var != nil {
				c.target(it.Var, nil)
			}
		}
	case *FuncDef:
		c.unknown(s.Name)
		// A nested function may rebind this one's locals.
		for _, n := range nonlocals(s.Body) {
			c.unknown(n)
		}
	case *ClassDef:
		c.unknown(s.Name)
		for _, n := range nonlocals(s.Body) {
			c.unknown(n)
		}
	case *ImportStmt, *ImportFrom:
		// Imported names are modules or their members.
		for _, a := range importedNames(s) {
			c.unknown(a)
		}
	case *Global:
		for _, n := range s.Names {
			c.unknown(n) // bound elsewhere too
		}
	}
}

func importedNames(s Stmt) []string {
	var names []string
	switch s := s.(type) {
	case *ImportStmt:
		for _, a := range s.Names {
			names = append(names, a.As, a.Name)
		}
	case *ImportFrom:
		for _, a := range s.Names {
			names = append(names, a.As, a.Name)
		}
	}
	return names
}

func isRangeCall(x Expr, shadowed func(string) bool) bool {
	c, ok := unparen(x).(*Call)
	if !ok {
		return false
	}
	fn, ok := c.Fn.(*Name)
	return ok && fn.ID == "range" && !shadowed("range")
}

// isNumeric reports whether x always evaluates to a number (int, float or
// bool; with strict, int or float), given which names are known numeric.
// With memo it memoizes its answers for BinOp nodes (see BinOp): only
// the lowering may ask for that, as its answers for a node never change.
func isNumeric(x Expr, known func(string) bool, shadowed func(string) bool, strict bool) bool {
	return numeric(x, known, shadowed, strict, false)
}

func numeric(x Expr, known func(string) bool, shadowed func(string) bool, strict, memoize bool) bool {
	num := func(x Expr) bool { return numeric(x, known, shadowed, strict, memoize) }
	switch x := unparen(x).(type) {
	case *Num:
		return !x.Imag
	case *Const:
		return !strict && (x.Kind == kwTrue || x.Kind == kwFalse)
	case *Name:
		return known(x.ID)
	case *UnaryOp:
		if x.Op == kwNot {
			return !strict
		}
		// - and ~ of a bool give an int; go.starlark.net refuses + on a
		// bool, so strict does not count on that one. (A strict number
		// is a number, so for - and ~ the strict question need not be
		// asked: asking both at every level of - - - x took time
		// exponential in the length of the chain.)
		if x.Op == tPLUS {
			return num(x.X)
		}
		return numeric(x.X, known, shadowed, false, false)
	case *BinOp:
		switch x.Op {
		case tPLUS, tMINUS, tSTAR, tSLASH, tSLASHSLASH, tPERCENT, tSTARSTAR, tLTLT, tGTGT, tAMP, tPIPE, tCARET:
			// & | ^ of two bools is a bool, which strict refuses in the
			// operands already.
			if !memoize {
				return num(x.X) && num(x.Y)
			}
			if x.num == 0 {
				x.num = memo(num(x.X) && num(x.Y))
			}
			return x.num == 2
		}
	case *BoolOp:
		return num(x.X) && num(x.Y)
	case *Compare:
		return !strict
	case *IfExp:
		return num(x.True) && num(x.False)
	case *Call:
		fn, ok := x.Fn.(*Name)
		return ok && numericBuiltins[fn.ID] && !(strict && fn.ID == "bool") && !shadowed(fn.ID)
	}
	return false
}

// boundNames adds to bound every name the program binds, in any scope
// (lambda and comprehension bodies aside, which bind only their
// parameters and targets). has tells whether expressions can bind any.
func boundNames(body []Stmt, bound map[string]bool, has contents) {
	b := binder{bound, has}
	var fx func(Expr)
	if has.walrus || has.lambda || has.comp {
		fx = b.expr
	}
	walkStmts(body, fx, b.stmt)
}

// binder fills the set of boundNames.
type binder struct {
	set map[string]bool
	has contents
}

func (b binder) target(t Expr) {
	switch t := unparen(t).(type) {
	case *Name:
		b.set[t.ID] = true
	case *Seq:
		for _, e := range t.Elts {
			b.target(unstar(e))
		}
	case *Starred:
		b.target(t.X)
	}
}

func (b binder) expr(x Expr) {
	switch x := x.(type) {
	case *NamedExpr:
		b.set[x.Target.ID] = true
	case *Lambda:
		for _, p := range x.Params {
			b.set[p.Name] = true
		}
	case *Comp:
		for _, c := range x.Clauses {
			b.target(c.Target)
		}
	}
}

func (b binder) stmt(s Stmt) {
	switch s := s.(type) {
	case *Assign:
		for _, t := range s.Targets {
			b.target(t)
		}
	case *AugAssign:
		b.target(s.Target)
	case *AnnAssign:
		b.target(s.Target)
	case *For:
		b.target(s.Target)
	case *FuncDef:
		b.set[s.Name] = true
		for _, p := range s.Params {
			b.set[p.Name] = true
		}
		boundNames(s.Body, b.set, b.has)
	case *ClassDef:
		b.set[s.Name] = true
		boundNames(s.Body, b.set, b.has)
	case *ImportStmt, *ImportFrom:
		for _, n := range importedNames(s) {
			b.set[n] = true
		}
	case *Try:
		for _, h := range s.Handlers {
			b.set[h.Name] = true
		}
	case *With:
		for _, it := range s.Items {
			if it.Var != nil {
				b.target(it.Var)
			}
		}
	}
}

// nonlocals returns the names declared nonlocal in body or in functions
// nested in it.
func nonlocals(body []Stmt) []string {
	var names []string
	walkStmts(body, nil, func(s Stmt) {
		switch s := s.(type) {
		case *Global:
			if s.Nonlocal {
				names = append(names, s.Names...)
			}
		case *FuncDef:
			names = append(names, nonlocals(s.Body)...)
		case *ClassDef:
			names = append(names, nonlocals(s.Body)...)
		}
	})
	return names
}

// knownNumber reports whether x, at the current position of the
// lowering, always evaluates to an int or a float (never a bool): then
// a + b needs no guard, as the sum of two numbers grows by a bit at
// most, and go.starlark.net adds them as Python does.
func (l *lowerer) knownNumber(x Expr) bool {
	return numeric(x, l.numericName, l.shadowed, true, true)
}

// knownInt reports whether x, at the current position of the lowering,
// always evaluates to an int (never a bool or a float).
func (l *lowerer) knownInt(x Expr) bool {
	return intExpr(x, l.intName, l.shadowed)
}

// intName reports whether the variable that name refers to here is an
// int local of the innermost function.
func (l *lowerer) intName(name string) bool {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		switch s := l.scopes[i]; s.kind {
		case scopeClosure:
			continue
		case scopeLocal:
			if s.names[name] {
				return false
			}
		case scopeFunc:
			return s.ints[name] && !s.globals[name]
		default:
			return false
		}
	}
	return false
}

// numericName reports whether the variable that name refers to here is
// a numeric local of the innermost function.
func (l *lowerer) numericName(name string) bool {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		switch s := l.scopes[i]; s.kind {
		case scopeClosure:
			continue
		case scopeLocal:
			if s.names[name] {
				return false
			}
		case scopeFunc:
			return s.numeric[name] && !s.globals[name]
		default:
			return false
		}
	}
	return false
}
