package pyfront

import (
	"slices"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Lowering of class statements.
//
//	class C(B):               def __sa_t1():
//	    x = 1                     __sa_t2 = __sa_cell("__class__")
//	    def m(self):              x = 1
//	        return super().m()    def m(self):
//	                                  return __sa_super(__sa_t2, self).m()
//	                              return ({"x": x, "m": m}, __sa_t2)
//	                          __sa_t3 = __sa_t1()
//	                          C = __sa_class("C", __sa_t3[0], __sa_t3[1], [], __sa_box, B)
//
// The body runs as a function so that its statements see each other's
// names, as in Python; builtins.HelperClass builds the class from the
// namespace it returns. Class bodies may hold what model-written classes
// hold (assignments to names, annotated fields, defs, docstrings, pass);
// anything else is reported as needing full Python.

// specialMethods are the special methods of Python's data model that a
// class body may define (or bind: __repr__ = __str__) and code may read
// as attributes (super().__init__(...), Base.__str__(self), m.__enter__()).
// The runtime calls them for the syntax and builtins they implement.
// Reflective names (__class__, __dict__, __globals__, ...) and the hooks
// that would intercept attribute access or class creation
// (__getattr__, __getattribute__, __setattr__, __new__,
// __init_subclass__, __set_name__, __class_getitem__, descriptors'
// __get__/__set__) are not here: nothing in this runtime has them, and
// the front end keeps refusing them.
var specialMethods = map[string]bool{
	// construction, representation, comparison
	"__init__": true, "__post_init__": true, "__str__": true, "__repr__": true,
	"__format__": true, "__eq__": true, "__ne__": true, "__lt__": true,
	"__le__": true, "__gt__": true, "__ge__": true, "__hash__": true,
	"__bool__": true,
	// containers and iteration
	"__len__": true, "__iter__": true, "__next__": true, "__reversed__": true,
	"__getitem__": true, "__setitem__": true, "__delitem__": true,
	"__contains__": true, "__missing__": true, "__length_hint__": true,
	// calls and context managers
	"__call__": true, "__enter__": true, "__exit__": true,
	// numbers
	"__index__": true, "__int__": true, "__float__": true, "__round__": true,
	"__trunc__": true, "__floor__": true, "__ceil__": true,
	"__neg__": true, "__pos__": true, "__abs__": true, "__invert__": true,
	// binary operators: plain, reflected and in place
	"__add__": true, "__radd__": true, "__iadd__": true,
	"__sub__": true, "__rsub__": true, "__isub__": true,
	"__mul__": true, "__rmul__": true, "__imul__": true,
	"__matmul__": true, "__rmatmul__": true, "__imatmul__": true,
	"__truediv__": true, "__rtruediv__": true, "__itruediv__": true,
	"__floordiv__": true, "__rfloordiv__": true, "__ifloordiv__": true,
	"__mod__": true, "__rmod__": true, "__imod__": true,
	"__divmod__": true, "__rdivmod__": true,
	"__pow__": true, "__rpow__": true, "__ipow__": true,
	"__lshift__": true, "__rlshift__": true, "__ilshift__": true,
	"__rshift__": true, "__rrshift__": true, "__irshift__": true,
	"__and__": true, "__rand__": true, "__iand__": true,
	"__or__": true, "__ror__": true, "__ior__": true,
	"__xor__": true, "__rxor__": true, "__ixor__": true,
	// copying
	"__copy__": true, "__deepcopy__": true,
}

func (l *lowerer) classDef(n *ClassDef, out []syntax.Stmt) []syntax.Stmt {
	l.checkName(n.Name, n.pos)
	if len(n.Bases) > 1 {
		l.needs(n.pos, "multiple inheritance")
	}
	var base Expr
	if len(n.Bases) == 1 {
		if n.Bases[0].Kind != argPos {
			l.needs(n.pos, "class keyword arguments (metaclass=...)")
		}
		base = n.Bases[0].X
	}
	if py, _ := l.pyScope(); py.kind == scopeClass {
		l.needs(n.pos, "a class nested in a class body")
	}
	cs := l.newScope(scopeClass)
	cs.className = n.Name
	var order, fields []string
	bind := func(name string) {
		if !cs.names[name] {
			cs.names[name] = true
			order = append(order, name)
		}
	}
	// Names bound only inside an if, for or while of the body start as
	// unbound cells, which __sa_class leaves out of the class; names read
	// before the body binds them (x = x + 1) start as the module's global,
	// which Python's class body reads then.
	var unset, early []string
	walrus := l.a.has.walrus
	for _, s := range n.Body {
		switch st := s.(type) {
		case *Assign:
			if py, _ := l.pyScope(); py.kind == scopeModule {
				early = append(early, readsBefore(st.Value, cs.names)...)
			}
			for _, t := range st.Targets {
				names := map[string]bool{}
				bindTargets(t, names)
				for _, nm := range sortedKeys(names) {
					bind(nm)
				}
			}
		case *AugAssign:
			nm, ok := unparen(st.Target).(*Name)
			if !ok {
				l.needs(st.pos, "this assignment in a class body")
			}
			if py, _ := l.pyScope(); py.kind == scopeModule && !cs.names[nm.ID] {
				early = append(early, nm.ID)
			}
			bind(nm.ID)
		case *AnnAssign:
			nm, ok := unparen(st.Target).(*Name)
			if !ok {
				l.needs(st.pos, "this annotated assignment in a class body")
			}
			fields = append(fields, nm.ID)
			if st.Value != nil {
				if py, _ := l.pyScope(); py.kind == scopeModule {
					early = append(early, readsBefore(st.Value, cs.names)...)
				}
				bind(nm.ID)
			}
		case *FuncDef:
			bind(st.Name)
		case *If, *For, *While:
			names, declared := map[string]bool{}, map[string]bool{}
			bindings([]Stmt{s}, names, declared, walrus)
			if len(declared) > 0 {
				l.needs(s.at(), "a global declaration in a class body")
			}
			for _, nm := range sortedKeys(names) {
				if !cs.names[nm] {
					unset = append(unset, nm)
				}
				bind(nm)
			}
		case *ExprStmt, *Simple:
			if sm, ok := st.(*Simple); ok && sm.Kind != kwPass {
				l.needs(sm.pos, "this statement in a class body")
			}
		default:
			l.needs(s.at(), "this statement in a class body")
		}
	}
	early = slices.DeleteFunc(early, func(nm string) bool { return !cs.names[nm] })
	slices.Sort(early)
	early = slices.Compact(early)
	unset = slices.DeleteFunc(unset, func(nm string) bool { _, found := slices.BinarySearch(early, nm); return found })
	// Evaluate the base before the body, as Python does.
	var baseVal syntax.Expr
	if base != nil {
		baseVal = l.expr(l.hoist(base, &out))
	}
	cs.classCell = l.temp()
	loops := l.loops
	l.loops = nil
	l.scopes = append(l.scopes, cs)
	body := []syntax.Stmt{l.assign(l.ident(cs.classCell, n.pos), l.call(contract.HelperCell, n.pos, l.str("__class__", n.pos)), n.pos)}
	for _, nm := range unset {
		body = append(body, l.assign(l.ident(nm, n.pos), l.call(contract.HelperCell, n.pos, l.str(nm, n.pos)), n.pos))
	}
	for _, nm := range early {
		l.checkName(nm, n.pos)
		body = append(body, l.assign(l.ident(nm, n.pos), l.dot(l.call(contract.HelperGlobals, n.pos), nm, n.pos), n.pos))
	}
	var doc syntax.Expr
	for i, s := range n.Body {
		if e, ok := s.(*ExprStmt); ok {
			if str, ok := e.X.(*Str); ok {
				if i == 0 && !str.Bytes {
					doc = l.expr(str) // the docstring: the class's __doc__
				}
				continue
			}
		}
		body = l.stmt(s, body)
	}
	l.scopes = l.scopes[:len(l.scopes)-1]
	l.loops = loops
	ns := &syntax.DictExpr{Lbrace: l.pos(n.pos), Rbrace: l.pos(n.pos)}
	if doc != nil && !slices.Contains(order, "__doc__") {
		ns.List = append(ns.List, &syntax.DictEntry{Key: l.str("__doc__", n.pos), Colon: l.pos(n.pos), Value: doc})
	}
	for _, name := range order {
		ns.List = append(ns.List, &syntax.DictEntry{Key: l.str(name, n.pos), Colon: l.pos(n.pos), Value: l.ident(name, n.pos)})
	}
	body = append(body, &syntax.ReturnStmt{Return: l.pos(n.pos), Result: &syntax.TupleExpr{
		Lparen: l.pos(n.pos), List: []syntax.Expr{ns, l.ident(cs.classCell, n.pos)}, Rparen: l.pos(n.pos),
	}})
	fn, r := l.temp(), l.temp()
	out = append(out, &syntax.DefStmt{Def: l.pos(n.pos), Name: l.ident(fn, n.pos), Lparen: l.pos(n.pos), Rparen: l.pos(n.pos), Body: body})
	out = append(out, l.callOnce(fn, r, "", n.pos)...)
	fl := &syntax.ListExpr{Lbrack: l.pos(n.pos), Rbrack: l.pos(n.pos)}
	for _, f := range fields {
		fl.List = append(fl.List, l.str(f, n.pos))
	}
	args := []syntax.Expr{l.str(n.Name, n.pos), l.index0(r, 0, n.pos), l.index0(r, 1, n.pos), fl, l.ident(contract.HelperBox, n.pos)}
	if baseVal != nil {
		args = append(args, baseVal)
	}
	var v syntax.Expr = l.call(contract.HelperClass, n.pos, args...)
	for i := len(n.Decorators) - 1; i >= 0; i-- {
		d := n.Decorators[i]
		v = &syntax.CallExpr{Fn: l.expr(d), Lparen: l.pos(d.at()), Args: []syntax.Expr{v}, Rparen: l.pos(d.at())}
	}
	return append(out, l.assign(l.name(n.Name, n.pos, true), v, n.pos))
}

// readsBefore returns the names of bound that x reads (outside nested
// functions): names a class body reads before binding them.
func readsBefore(x Expr, bound map[string]bool) []string {
	var out []string
	walkExpr(x, func(y Expr) {
		if nm, ok := y.(*Name); ok && !bound[nm.ID] && !slices.Contains(out, nm.ID) {
			out = append(out, nm.ID)
		}
	})
	return out
}

// super lowers super() (or super(C, self) naming the enclosing class) in
// a method to __sa_super(class cell, first parameter).
func (l *lowerer) super(n *Call) syntax.Expr {
	var fn, class *scope
	for i := len(l.scopes) - 1; i >= 0; i-- {
		s := l.scopes[i]
		if s.kind == scopeClosure {
			continue
		}
		if fn == nil {
			if s.kind != scopeFunc {
				break
			}
			fn = s
			continue
		}
		if s.kind == scopeClass {
			class = s
		}
		break
	}
	if class == nil || fn.self == "" {
		l.needs(n.pos, "super() outside a method")
	}
	self := l.name(fn.self, n.pos, false)
	if len(n.Args) == 2 {
		c, ok1 := unparen(n.Args[0].X).(*Name)
		s, ok2 := unparen(n.Args[1].X).(*Name)
		if !ok1 || !ok2 || s.ID != fn.self || n.Args[0].Kind != argPos || n.Args[1].Kind != argPos {
			l.needs(n.pos, "this form of super()")
		}
		if c.ID != class.className {
			l.needs(n.pos, "super() naming a class other than the enclosing one")
		}
	} else if len(n.Args) != 0 {
		l.needs(n.pos, "this form of super()")
	}
	return l.call(contract.HelperSuper, n.pos, l.ident(class.classCell, n.pos), self)
}
