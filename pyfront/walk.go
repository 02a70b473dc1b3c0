package pyfront

// Walking the Python tree, for the checks lowering makes before it
// rewrites a function (yield, global and nonlocal declarations).

// walkStmts calls fx for every expression and fs for every statement in
// body, not descending into nested function or class bodies or lambdas.
// Either may be nil; without fx, expressions are not visited (they hold
// no statements).
func walkStmts(body []Stmt, fx func(Expr), fs func(Stmt)) {
	for _, s := range body {
		if fs != nil {
			fs(s)
		}
		switch n := s.(type) {
		case *ExprStmt:
			walkExpr(n.X, fx)
		case *Assign:
			for _, t := range n.Targets {
				walkExpr(t, fx)
			}
			walkExpr(n.Value, fx)
		case *AugAssign:
			walkExpr(n.Target, fx)
			walkExpr(n.Value, fx)
		case *AnnAssign:
			walkExpr(n.Target, fx)
			walkExpr(n.Value, fx)
		case *If:
			walkExpr(n.Cond, fx)
			walkStmts(n.Body, fx, fs)
			walkStmts(n.Else, fx, fs)
		case *For:
			walkExpr(n.Target, fx)
			walkExpr(n.Iter, fx)
			walkStmts(n.Body, fx, fs)
			walkStmts(n.Else, fx, fs)
		case *While:
			walkExpr(n.Cond, fx)
			walkStmts(n.Body, fx, fs)
			walkStmts(n.Else, fx, fs)
		case *FuncDef:
			for _, d := range n.Decorators {
				walkExpr(d, fx)
			}
			for _, p := range n.Params {
				walkExpr(p.Default, fx)
			}
		case *ClassDef:
			for _, d := range n.Decorators {
				walkExpr(d, fx)
			}
		case *Return:
			walkExpr(n.X, fx)
		case *Del:
			for _, t := range n.Targets {
				walkExpr(t, fx)
			}
		case *Assert:
			walkExpr(n.Test, fx)
			walkExpr(n.Msg, fx)
		case *Raise:
			walkExpr(n.Exc, fx)
			walkExpr(n.Cause, fx)
		case *Try:
			walkStmts(n.Body, fx, fs)
			for _, h := range n.Handlers {
				walkExpr(h.Type, fx)
				walkStmts(h.Body, fx, fs)
			}
			walkStmts(n.Else, fx, fs)
			walkStmts(n.Finally, fx, fs)
		case *With:
			for _, it := range n.Items {
				walkExpr(it.Ctx, fx)
				walkExpr(it.Var, fx)
			}
			walkStmts(n.Body, fx, fs)
		}
	}
}

func walkExpr(x Expr, f func(Expr)) {
	if x == nil || f == nil {
		return
	}
	f(x)
	switch n := x.(type) {
	case *Paren:
		walkExpr(n.X, f)
	case *Attr:
		walkExpr(n.X, f)
	case *Subscript:
		walkExpr(n.X, f)
		walkExpr(n.Index, f)
	case *Slice:
		walkExpr(n.Lo, f)
		walkExpr(n.Hi, f)
		walkExpr(n.Step, f)
	case *Call:
		walkExpr(n.Fn, f)
		for _, a := range n.Args {
			walkExpr(a.X, f)
		}
	case *BinOp:
		walkExpr(n.X, f)
		walkExpr(n.Y, f)
	case *BoolOp:
		walkExpr(n.X, f)
		walkExpr(n.Y, f)
	case *UnaryOp:
		walkExpr(n.X, f)
	case *Compare:
		walkExpr(n.X, f)
		for _, y := range n.Ys {
			walkExpr(y, f)
		}
	case *IfExp:
		walkExpr(n.Cond, f)
		walkExpr(n.True, f)
		walkExpr(n.False, f)
	case *Seq:
		for _, e := range n.Elts {
			walkExpr(e, f)
		}
	case *Dict:
		for i := range n.Keys {
			walkExpr(n.Keys[i], f)
			walkExpr(n.Values[i], f)
		}
	case *Comp:
		walkExpr(n.Elt, f)
		walkExpr(n.Val, f)
		for _, c := range n.Clauses {
			walkExpr(c.Target, f)
			walkExpr(c.Iter, f)
			for _, i := range c.Ifs {
				walkExpr(i, f)
			}
		}
	case *Starred:
		walkExpr(n.X, f)
	case *NamedExpr:
		walkExpr(n.Value, f)
	case *Yield:
		walkExpr(n.X, f)
	case *Await:
		walkExpr(n.X, f)
	case *FStr:
		walkParts(n.Parts, f)
	case *Lambda:
		for _, p := range n.Params {
			walkExpr(p.Default, f)
		}
	}
}

func walkParts(parts []fpart, f func(Expr)) {
	for _, p := range parts {
		walkExpr(p.X, f)
		walkParts(p.Spec, f)
	}
}
