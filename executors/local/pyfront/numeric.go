package pyfront

// Numeric inference. The memory guard on a + b (a call of __sa_add) is
// needed only when both operands could be sequences: a concatenation can
// double a value in one interpreter step. In a tight arithmetic loop the
// call costs as much as the loop body, so the lowering skips it when an
// operand is known to be a number.
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
// cannot be trusted.
func numericNames(params []Param, body []Stmt, shadowed func(string) bool, strict bool) map[string]bool {
	bindings := map[string][]Expr{} // nil entry: a binding of unknown value
	unknown := func(name string) { bindings[name] = append(bindings[name], nil) }
	for _, p := range params {
		unknown(p.Name)
	}
	var target func(t Expr, value Expr)
	target = func(t Expr, value Expr) {
		switch t := unparen(t).(type) {
		case *Name:
			bindings[t.ID] = append(bindings[t.ID], value)
		case *Seq:
			for _, e := range t.Elts {
				target(unstar(e), nil)
			}
		}
	}
	var stmts func([]Stmt)
	stmts = func(body []Stmt) {
		for _, s := range body {
			switch s := s.(type) {
			case *Assign:
				for _, t := range s.Targets {
					target(t, s.Value)
				}
			case *AugAssign:
				if n, ok := unparen(s.Target).(*Name); ok {
					bindings[n.ID] = append(bindings[n.ID], &BinOp{Op: s.Op, X: n, Y: s.Value})
				}
			case *AnnAssign:
				if s.Value != nil {
					target(s.Target, s.Value)
				}
			case *For:
				if isRangeCall(s.Iter, shadowed) {
					target(s.Target, &Num{Val: int64(0)})
				} else {
					target(s.Target, nil)
				}
				stmts(s.Body)
				stmts(s.Else)
			case *While:
				stmts(s.Body)
				stmts(s.Else)
			case *If:
				stmts(s.Body)
				stmts(s.Else)
			case *Try:
				stmts(s.Body)
				for _, h := range s.Handlers {
					if h.Name != "" {
						unknown(h.Name)
					}
					stmts(h.Body)
				}
				stmts(s.Else)
				stmts(s.Finally)
			case *With:
				for _, it := range s.Items {
					if it.Var != nil {
						target(it.Var, nil)
					}
				}
				stmts(s.Body)
			case *FuncDef:
				unknown(s.Name)
				// A nested function may rebind this one's locals.
				for _, n := range nonlocals(s.Body) {
					unknown(n)
				}
			case *ClassDef:
				unknown(s.Name)
				for _, n := range nonlocals(s.Body) {
					unknown(n)
				}
			case *ImportStmt, *ImportFrom:
				// Imported names are modules or their members.
				for _, a := range importedNames(s) {
					unknown(a)
				}
			case *Global:
				for _, n := range s.Names {
					unknown(n) // bound elsewhere too
				}
			}
			// Walrus targets anywhere in the statement's expressions.
			walkStmts([]Stmt{s}, func(x Expr) {
				if w, ok := x.(*NamedExpr); ok {
					bindings[w.Target.ID] = append(bindings[w.Target.ID], nil)
				}
			}, nil)
		}
	}
	stmts(body)

	numeric := map[string]bool{}
	for name, vals := range bindings {
		numeric[name] = true
		for _, v := range vals {
			if v == nil {
				numeric[name] = false
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for name, vals := range bindings {
			if !numeric[name] {
				continue
			}
			for _, v := range vals {
				if !isNumeric(v, func(n string) bool { return numeric[n] }, shadowed, strict) {
					numeric[name] = false
					changed = true
					break
				}
			}
		}
	}
	for name, ok := range numeric {
		if !ok {
			delete(numeric, name)
		}
	}
	return numeric
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
func isNumeric(x Expr, known func(string) bool, shadowed func(string) bool, strict bool) bool {
	num := func(x Expr) bool { return isNumeric(x, known, shadowed, strict) }
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
		// bool, so strict does not count on that one.
		return num(x.X) || (x.Op != tPLUS && isNumeric(x.X, known, shadowed, false))
	case *BinOp:
		switch x.Op {
		case tPLUS, tMINUS, tSTAR, tSLASH, tSLASHSLASH, tPERCENT, tSTARSTAR, tLTLT, tGTGT, tAMP, tPIPE, tCARET:
			// & | ^ of two bools is a bool, which strict refuses in the
			// operands already.
			return num(x.X) && num(x.Y)
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

// boundNames returns every name the program binds, in any scope (lambda
// and comprehension bodies aside, which bind only their parameters and
// targets).
func boundNames(body []Stmt) map[string]bool {
	bound := map[string]bool{}
	var target func(Expr)
	target = func(t Expr) {
		switch t := unparen(t).(type) {
		case *Name:
			bound[t.ID] = true
		case *Seq:
			for _, e := range t.Elts {
				target(unstar(e))
			}
		case *Starred:
			target(t.X)
		}
	}
	walkStmts(body, func(x Expr) {
		switch x := x.(type) {
		case *NamedExpr:
			bound[x.Target.ID] = true
		case *Lambda:
			for _, p := range x.Params {
				bound[p.Name] = true
			}
		case *Comp:
			for _, c := range x.Clauses {
				target(c.Target)
			}
		}
	}, func(s Stmt) {
		switch s := s.(type) {
		case *Assign:
			for _, t := range s.Targets {
				target(t)
			}
		case *AugAssign:
			target(s.Target)
		case *AnnAssign:
			target(s.Target)
		case *For:
			target(s.Target)
		case *FuncDef:
			bound[s.Name] = true
			for _, p := range s.Params {
				bound[p.Name] = true
			}
			for n := range boundNames(s.Body) {
				bound[n] = true
			}
		case *ClassDef:
			bound[s.Name] = true
			for n := range boundNames(s.Body) {
				bound[n] = true
			}
		case *ImportStmt, *ImportFrom:
			for _, n := range importedNames(s) {
				bound[n] = true
			}
		case *Try:
			for _, h := range s.Handlers {
				bound[h.Name] = true
			}
		case *With:
			for _, it := range s.Items {
				if it.Var != nil {
					target(it.Var)
				}
			}
		}
	})
	return bound
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
	return isNumeric(x, l.numericName, l.shadowed, true)
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
