package pyfront

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// format prints a lowered file as Starlark source, for golden tests and
// for reading failures.
func format(f *syntax.File) string {
	var b strings.Builder
	for _, s := range f.Stmts {
		fmtStmt(&b, s, "")
	}
	return b.String()
}

func fmtStmt(b *strings.Builder, s syntax.Stmt, indent string) {
	block := func(body []syntax.Stmt) {
		for _, s := range body {
			fmtStmt(b, s, indent+"    ")
		}
	}
	b.WriteString(indent)
	switch s := s.(type) {
	case *syntax.ExprStmt:
		b.WriteString(fmtExpr(s.X) + "\n")
	case *syntax.AssignStmt:
		fmt.Fprintf(b, "%s %s %s\n", fmtExpr(s.LHS), s.Op, fmtExpr(s.RHS))
	case *syntax.BranchStmt:
		b.WriteString(s.Token.String() + "\n")
	case *syntax.ReturnStmt:
		b.WriteString("return")
		if s.Result != nil {
			b.WriteString(" " + fmtExpr(s.Result))
		}
		b.WriteString("\n")
	case *syntax.IfStmt:
		b.WriteString("if " + fmtExpr(s.Cond) + ":\n")
		block(s.True)
		if s.False != nil {
			b.WriteString(indent + "else:\n")
			block(s.False)
		}
	case *syntax.ForStmt:
		b.WriteString("for " + fmtExpr(s.Vars) + " in " + fmtExpr(s.X) + ":\n")
		block(s.Body)
	case *syntax.WhileStmt:
		b.WriteString("while " + fmtExpr(s.Cond) + ":\n")
		block(s.Body)
	case *syntax.DefStmt:
		b.WriteString("def " + s.Name.Name + "(" + fmtList(s.Params) + "):\n")
		block(s.Body)
	default:
		fmt.Fprintf(b, "<%T>\n", s)
	}
}

func fmtList(xs []syntax.Expr) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmtExpr(x)
	}
	return strings.Join(parts, ", ")
}

func fmtExpr(x syntax.Expr) string {
	switch x := x.(type) {
	case nil:
		return ""
	case *syntax.Ident:
		return x.Name
	case *syntax.Literal:
		switch v := x.Value.(type) {
		case float64:
			return starlark.Float(v).String()
		case string:
			if x.Token == syntax.BYTES {
				return "b" + strconv.Quote(v)
			}
			return strconv.Quote(v)
		default:
			return fmt.Sprint(v)
		}
	case *syntax.ParenExpr:
		return "(" + fmtExpr(x.X) + ")"
	case *syntax.CallExpr:
		return fmtExpr(x.Fn) + "(" + fmtList(x.Args) + ")"
	case *syntax.DotExpr:
		return fmtExpr(x.X) + "." + x.Name.Name
	case *syntax.IndexExpr:
		return fmtExpr(x.X) + "[" + fmtExpr(x.Y) + "]"
	case *syntax.SliceExpr:
		s := fmtExpr(x.X) + "[" + fmtExpr(x.Lo) + ":" + fmtExpr(x.Hi)
		if x.Step != nil {
			s += ":" + fmtExpr(x.Step)
		}
		return s + "]"
	case *syntax.BinaryExpr:
		if x.Op == syntax.EQ {
			return fmtExpr(x.X) + "=" + fmtExpr(x.Y)
		}
		return "(" + fmtExpr(x.X) + " " + x.Op.String() + " " + fmtExpr(x.Y) + ")"
	case *syntax.UnaryExpr:
		op := x.Op.String()
		if x.Op == syntax.NOT {
			op = "not "
		}
		return op + fmtExpr(x.X)
	case *syntax.CondExpr:
		return "(" + fmtExpr(x.True) + " if " + fmtExpr(x.Cond) + " else " + fmtExpr(x.False) + ")"
	case *syntax.ListExpr:
		return "[" + fmtList(x.List) + "]"
	case *syntax.TupleExpr:
		if len(x.List) == 1 {
			return "(" + fmtExpr(x.List[0]) + ",)"
		}
		return "(" + fmtList(x.List) + ")"
	case *syntax.DictExpr:
		return "{" + fmtList(x.List) + "}"
	case *syntax.DictEntry:
		return fmtExpr(x.Key) + ": " + fmtExpr(x.Value)
	case *syntax.LambdaExpr:
		return "lambda " + fmtList(x.Params) + ": " + fmtExpr(x.Body)
	case *syntax.Comprehension:
		var parts []string
		for _, c := range x.Clauses {
			switch c := c.(type) {
			case *syntax.ForClause:
				parts = append(parts, "for "+fmtExpr(c.Vars)+" in "+fmtExpr(c.X))
			case *syntax.IfClause:
				parts = append(parts, "if "+fmtExpr(c.Cond))
			}
		}
		if x.Curly {
			return "{" + fmtExpr(x.Body) + " " + strings.Join(parts, " ") + "}"
		}
		return "[" + fmtExpr(x.Body) + " " + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprintf("<%T>", x)
}
