package pyfront

import "strings"

// Private name mangling, as CPython's compiler does it (_Py_Mangle):
// inside a class body, and in everything nested in it, an identifier
// __spam (two leading underscores, not two trailing) is renamed
// _Class__spam, where Class is the innermost enclosing class's name
// without its leading underscores. Attribute names, names, parameters,
// def and class names and global declarations are all renamed (keyword
// names in calls are not), so self.__balance inside class Account is the attribute
// _Account__balance, as code outside the class can see it. Without
// classes nothing changes; outside a class a name beginning with __
// stays refused (the engine's own helpers are named so).

// unmangledPrivate reports whether attribute name is a private name read
// outside any class (a.__balance), which mangling left as it is: no value
// has such an attribute (they are stored mangled, and assigning one is
// refused), so reading it is CPython's AttributeError at run time rather
// than a refusal of the whole step. The engine's __sa_ names stay refused.
func unmangledPrivate(name string) bool {
	return strings.HasPrefix(name, "__") && !strings.HasSuffix(name, "__") && !strings.HasPrefix(name, "__sa")
}

// mangleModule renames the private names of every class in body.
func mangleModule(body []Stmt) {
	m := mangler{}
	m.stmts(body)
}

type mangler struct {
	cls string // the enclosing class's name, stripped; "" outside classes
}

// name is id as the enclosing class sees it.
func (m mangler) name(id string) string {
	if m.cls == "" || !strings.HasPrefix(id, "__") || strings.HasSuffix(id, "__") || strings.Contains(id, ".") {
		return id
	}
	return "_" + m.cls + id
}

func (m mangler) stmts(body []Stmt) {
	for _, s := range body {
		m.stmt(s)
	}
}

func (m mangler) stmt(s Stmt) {
	switch n := s.(type) {
	case *ExprStmt:
		m.expr(n.X)
	case *Assign:
		for _, t := range n.Targets {
			m.expr(t)
		}
		m.expr(n.Value)
	case *AugAssign:
		m.expr(n.Target)
		m.expr(n.Value)
	case *AnnAssign:
		m.expr(n.Target)
		m.expr(n.Value)
	case *If:
		m.expr(n.Cond)
		m.stmts(n.Body)
		m.stmts(n.Else)
	case *For:
		m.expr(n.Target)
		m.expr(n.Iter)
		m.stmts(n.Body)
		m.stmts(n.Else)
	case *While:
		m.expr(n.Cond)
		m.stmts(n.Body)
		m.stmts(n.Else)
	case *FuncDef:
		n.Name = m.name(n.Name)
		for _, d := range n.Decorators {
			m.expr(d)
		}
		m.params(n.Params)
		m.stmts(n.Body)
	case *ClassDef:
		// The body mangles with the name the class was given; the
		// name itself is bound in the enclosing scope, which mangles it.
		inner := mangler{cls: strings.TrimLeft(n.Name, "_")}
		n.Name = m.name(n.Name)
		for _, d := range n.Decorators {
			m.expr(d)
		}
		m.args(n.Bases)
		inner.stmts(n.Body)
	case *Return:
		m.expr(n.X)
	case *Global:
		for i, nm := range n.Names {
			n.Names[i] = m.name(nm)
		}
	case *Del:
		for _, t := range n.Targets {
			m.expr(t)
		}
	case *Assert:
		m.expr(n.Test)
		m.expr(n.Msg)
	case *Raise:
		m.expr(n.Exc)
		m.expr(n.Cause)
	case *Try:
		m.stmts(n.Body)
		for i := range n.Handlers {
			h := &n.Handlers[i]
			m.expr(h.Type)
			h.Name = m.name(h.Name)
			m.stmts(h.Body)
		}
		m.stmts(n.Else)
		m.stmts(n.Finally)
	case *With:
		for _, it := range n.Items {
			m.expr(it.Ctx)
			m.expr(it.Var)
		}
		m.stmts(n.Body)
	}
}

func (m mangler) params(ps []Param) {
	for i := range ps {
		ps[i].Name = m.name(ps[i].Name)
		m.expr(ps[i].Default)
	}
}

// args mangles a call's arguments; keyword names are not mangled (f(__k=1)
// passes __k, as in CPython).
func (m mangler) args(as []Arg) {
	for i := range as {
		m.expr(as[i].X)
	}
}

func (m mangler) expr(x Expr) {
	if x == nil {
		return
	}
	switch n := x.(type) {
	case *Name:
		n.ID = m.name(n.ID)
	case *Paren:
		m.expr(n.X)
	case *Attr:
		m.expr(n.X)
		n.Name = m.name(n.Name)
	case *Subscript:
		m.expr(n.X)
		m.expr(n.Index)
	case *Slice:
		m.expr(n.Lo)
		m.expr(n.Hi)
		m.expr(n.Step)
	case *Call:
		m.expr(n.Fn)
		m.args(n.Args)
	case *BinOp:
		m.expr(n.X)
		m.expr(n.Y)
	case *BoolOp:
		m.expr(n.X)
		m.expr(n.Y)
	case *UnaryOp:
		m.expr(n.X)
	case *Compare:
		m.expr(n.X)
		for _, y := range n.Ys {
			m.expr(y)
		}
	case *IfExp:
		m.expr(n.Cond)
		m.expr(n.True)
		m.expr(n.False)
	case *Seq:
		for _, e := range n.Elts {
			m.expr(e)
		}
	case *Dict:
		for i := range n.Keys {
			m.expr(n.Keys[i])
			m.expr(n.Values[i])
		}
	case *Comp:
		m.expr(n.Elt)
		m.expr(n.Val)
		for i := range n.Clauses {
			c := &n.Clauses[i]
			m.expr(c.Target)
			m.expr(c.Iter)
			for _, e := range c.Ifs {
				m.expr(e)
			}
		}
	case *Starred:
		m.expr(n.X)
	case *NamedExpr:
		m.expr(n.Target)
		m.expr(n.Value)
	case *Yield:
		m.expr(n.X)
	case *Await:
		m.expr(n.X)
	case *FStr:
		m.parts(n.Parts)
	case *Lambda:
		m.params(n.Params)
		m.expr(n.Body)
	}
}

func (m mangler) parts(ps []fpart) {
	for _, p := range ps {
		m.expr(p.X)
		m.parts(p.Spec)
	}
}
