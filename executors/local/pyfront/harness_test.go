package pyfront

// Test doubles of the runtime helpers and a printer of lowered code. The
// doubles implement just enough Python semantics for the conformance
// files in testdata/run to print what CPython prints.

import (
	"fmt"
	"github.com/star-agent/star-agent/builtins"
	"math"
	"math/big"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// pyRepr renders v as Python's repr would, for the values tests use.
func pyRepr(v starlark.Value) string {
	switch v := v.(type) {
	case starlark.String:
		s := string(v)
		q := "'"
		if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
			q = `"`
		}
		var b strings.Builder
		b.WriteString(q)
		for _, r := range s {
			switch {
			case r == '\\':
				b.WriteString(`\\`)
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\t':
				b.WriteString(`\t`)
			case r == '\r':
				b.WriteString(`\r`)
			case string(r) == q:
				b.WriteString(`\` + q)
			case r < 0x20 || r == 0x7f:
				fmt.Fprintf(&b, `\x%02x`, r)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteString(q)
		return b.String()
	case starlark.Bytes:
		return "b" + pyRepr(starlark.String(v))
	case starlark.Float:
		f := float64(v)
		switch {
		case math.IsInf(f, 1):
			return "inf"
		case math.IsInf(f, -1):
			return "-inf"
		case math.IsNaN(f):
			return "nan"
		case f == math.Trunc(f) && math.Abs(f) < 1e16:
			return strconv.FormatFloat(f, 'f', 1, 64)
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if strings.Contains(s, "e") {
			mant, exp, _ := strings.Cut(s, "e")
			if exp[0] == '+' {
				exp = exp[1:]
			}
			if strings.HasPrefix(exp, "-0") || strings.HasPrefix(exp, "0") {
				exp = strings.Replace(exp, "0", "", 1)
			}
			if len(strings.TrimLeft(exp, "-")) < 2 {
				if exp[0] == '-' {
					exp = "-0" + exp[1:]
				} else {
					exp = "0" + exp
				}
			}
			if exp[0] != '-' {
				exp = "+" + exp
			}
			return mant + "e" + exp
		}
		return s
	case starlark.NoneType:
		return "None"
	case starlark.Bool:
		if v {
			return "True"
		}
		return "False"
	case *starlark.List:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = pyRepr(v.Index(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case starlark.Tuple:
		parts := make([]string, len(v))
		for i := range parts {
			parts[i] = pyRepr(v[i])
		}
		if len(v) == 1 {
			return "(" + parts[0] + ",)"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case *starlark.Dict:
		var parts []string
		for _, kv := range v.Items() {
			parts = append(parts, pyRepr(kv[0])+": "+pyRepr(kv[1]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *starlark.Set:
		if v.Len() == 0 {
			return "set()"
		}
		var parts []string
		it := v.Iterate()
		defer it.Done()
		var x starlark.Value
		for it.Next(&x) {
			parts = append(parts, pyRepr(x))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return v.String()
}

func pyStr(v starlark.Value) string {
	if s, ok := v.(starlark.String); ok {
		return string(s)
	}
	return pyRepr(v)
}

func builtin(name string, fn func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)) *starlark.Builtin {
	return starlark.NewBuiltin(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return fn(args, kwargs)
	})
}

// pyFormat applies a Python format spec to v for the common cases.
func pyFormat(v starlark.Value, spec string) (string, error) {
	if spec == "" {
		return pyStr(v), nil
	}
	fill, align := " ", byte(0)
	if len(spec) >= 2 && strings.IndexByte("<>^=", spec[1]) >= 0 {
		fill, align, spec = spec[:1], spec[1], spec[2:]
	} else if len(spec) >= 1 && strings.IndexByte("<>^=", spec[0]) >= 0 {
		align, spec = spec[0], spec[1:]
	}
	sign := ""
	if spec != "" && (spec[0] == '+' || spec[0] == ' ') {
		sign, spec = spec[:1], spec[1:]
	}
	if strings.HasPrefix(spec, "0") && len(spec) > 1 {
		fill, align, spec = "0", '=', spec[1:]
	}
	i := 0
	for i < len(spec) && spec[i] >= '0' && spec[i] <= '9' {
		i++
	}
	width, _ := strconv.Atoi(spec[:i])
	spec = spec[i:]
	comma := false
	if strings.HasPrefix(spec, ",") {
		comma, spec = true, spec[1:]
	}
	prec := -1
	if strings.HasPrefix(spec, ".") {
		j := 1
		for j < len(spec) && spec[j] >= '0' && spec[j] <= '9' {
			j++
		}
		prec, _ = strconv.Atoi(spec[1:j])
		spec = spec[j:]
	}
	typ := spec
	var s string
	numeric := false
	switch x := v.(type) {
	case starlark.Int:
		numeric = true
		switch typ {
		case "f", "%":
			f := float64(x.Float())
			if typ == "%" {
				f *= 100
			}
			if prec < 0 {
				prec = 6
			}
			s = strconv.FormatFloat(f, 'f', prec, 64)
			if typ == "%" {
				s += "%"
			}
		case "x":
			s = x.BigInt().Text(16)
		case "b":
			s = x.BigInt().Text(2)
		default:
			s = x.String()
		}
	case starlark.Float:
		numeric = true
		if prec < 0 && typ == "" {
			s = pyRepr(x)
		} else {
			if prec < 0 {
				prec = 6
			}
			f := float64(x)
			if typ == "%" {
				f *= 100
			}
			s = strconv.FormatFloat(f, 'f', prec, 64)
			if typ == "%" {
				s += "%"
			}
		}
	default:
		s = pyStr(v)
		if prec >= 0 && len(s) > prec {
			s = s[:prec]
		}
	}
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if comma {
		intPart, frac, _ := strings.Cut(s, ".")
		var b []byte
		for k := range intPart {
			if k > 0 && (len(intPart)-k)%3 == 0 {
				b = append(b, ',')
			}
			b = append(b, intPart[k])
		}
		s = string(b)
		if frac != "" {
			s += "." + frac
		}
	}
	if neg {
		sign = "-"
	} else if sign == " " || sign == "+" {
		// keep
	} else {
		sign = ""
	}
	if align == 0 {
		align = '<'
		if numeric {
			align = '>'
		}
	}
	n := width - len([]rune(s)) - len(sign)
	if n <= 0 {
		return sign + s, nil
	}
	pad := strings.Repeat(fill, n)
	switch align {
	case '<':
		return sign + s + pad, nil
	case '^':
		return strings.Repeat(fill, n/2) + sign + s + strings.Repeat(fill, n-n/2), nil
	case '=':
		return sign + pad + s, nil
	}
	return pad + sign + s, nil
}

// testPredeclared returns the universe and helper doubles; print appends
// Python-style output to out.
func testPredeclared(out *strings.Builder) starlark.StringDict {
	mathMod := &starlarkstruct.Module{Name: "math", Members: starlark.StringDict{
		"pi": starlark.Float(math.Pi),
		"sqrt": builtin("sqrt", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			f, _ := starlark.AsFloat(args[0])
			return starlark.Float(math.Sqrt(f)), nil
		}),
		"floor": builtin("floor", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			f, _ := starlark.AsFloat(args[0])
			return starlark.MakeInt64(int64(math.Floor(f))), nil
		}),
	}}
	osPath := &starlarkstruct.Module{Name: "os.path", Members: starlark.StringDict{
		"sep": starlark.String("/"),
	}}
	osMod := &starlarkstruct.Module{Name: "os", Members: starlark.StringDict{"path": osPath}}
	modules := map[string]starlark.Value{"math": mathMod, "os": osMod, "os.path": osPath}
	d := testDoubles(out, modules)
	// The guarded concatenation and formatting helpers are the real ones.
	// (From one Runtime, so that the guards and __sa_enter share its box.)
	rt := builtins.Runtime()
	for _, name := range []string{builtins.HelperPlus, builtins.HelperIPlus, builtins.HelperMod,
		builtins.HelperCmpConst, builtins.HelperUnpack,
		builtins.HelperEnter, builtins.HelperBox, builtins.HelperAssert, builtins.HelperIndex,
		builtins.HelperSlice, builtins.HelperEq, builtins.HelperBinop,
		// So are loops, generators and the call helpers.
		builtins.HelperLoop, builtins.HelperLoopCheck, builtins.HelperStar,
		builtins.HelperGenexpr, builtins.HelperGenerator, builtins.HelperYield, builtins.HelperYieldFrom,
		builtins.HelperKwargs, builtins.HelperSetVar, builtins.HelperGlobals} {
		d[name] = rt[name]
	}
	return d
}

// testDoubles are small stand-ins for builtins and runtime helpers that keep
// this package's tests independent of the builtins package's details.
func testDoubles(out *strings.Builder, modules map[string]starlark.Value) starlark.StringDict {
	return starlark.StringDict{
		"print": builtin("print", func(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			sep, end := " ", "\n"
			for _, kv := range kwargs {
				s, _ := starlark.AsString(kv[1])
				switch kv[0].(starlark.String) {
				case "sep":
					sep = s
				case "end":
					end = s
				}
			}
			for i, a := range args {
				if i > 0 {
					out.WriteString(sep)
				}
				out.WriteString(pyStr(a))
			}
			out.WriteString(end)
			return starlark.None, nil
		}),
		"str": builtin("str", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			if len(args) == 0 {
				return starlark.String(""), nil
			}
			return starlark.String(pyStr(args[0])), nil
		}),
		"repr": builtin("repr", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			return starlark.String(pyRepr(args[0])), nil
		}),
		"sum": builtin("sum", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			var acc starlark.Value = starlark.MakeInt(0)
			if len(args) > 1 {
				acc = args[1]
			}
			it := starlark.Iterate(args[0])
			defer it.Done()
			var x starlark.Value
			for it.Next(&x) {
				var err error
				if acc, err = starlark.Binary(syntax.PLUS, acc, x); err != nil {
					return nil, err
				}
			}
			return acc, nil
		}),
		"__sa_import": builtin("__sa_import", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			name, _ := starlark.AsString(args[0])
			if len(args) > 1 && args[1] == starlark.True {
				name, _, _ = strings.Cut(name, ".")
			}
			m, ok := modules[name]
			if !ok {
				return nil, fmt.Errorf("ModuleNotFoundError: No module named '%s'", name)
			}
			return m, nil
		}),
		"__sa_mul": builtin("__sa_mul", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			return starlark.Binary(syntax.STAR, args[0], args[1])
		}),
		"__sa_pow": builtin("__sa_pow", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			x, y := args[0], args[1]
			xi, xok := x.(starlark.Int)
			yi, yok := y.(starlark.Int)
			if xok && yok && yi.Sign() >= 0 {
				return starlark.MakeBigInt(new(big.Int).Exp(xi.BigInt(), yi.BigInt(), nil)), nil
			}
			xf, ok1 := starlark.AsFloat(x)
			yf, ok2 := starlark.AsFloat(y)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("unsupported operand type(s) for **")
			}
			return starlark.Float(math.Pow(xf, yf)), nil
		}),
		"__sa_fmt": builtin("__sa_fmt", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			conv, _ := starlark.AsString(args[1])
			spec, _ := starlark.AsString(args[2])
			v := args[0]
			if conv == "r" || conv == "a" {
				v = starlark.String(pyRepr(v))
			} else if conv == "s" {
				v = starlark.String(pyStr(v))
			}
			s, err := pyFormat(v, spec)
			return starlark.String(s), err
		}),
		"__sa_attr": builtin("__sa_attr", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			name, _ := starlark.AsString(args[1])
			if s, ok := args[0].(starlark.String); ok && name == "join" {
				return builtin("join", func(a starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
					var parts []string
					if str, ok := a[0].(starlark.String); ok {
						return starlark.String(strings.Join(strings.Split(string(str), ""), string(s))), nil
					}
					it := starlark.Iterate(a[0])
					if it == nil {
						return nil, fmt.Errorf("can only join an iterable")
					}
					defer it.Done()
					var x starlark.Value
					for it.Next(&x) {
						p, _ := starlark.AsString(x)
						parts = append(parts, p)
					}
					return starlark.String(strings.Join(parts, string(s))), nil
				}), nil
			}
			if h, ok := args[0].(starlark.HasAttrs); ok {
				return h.Attr(name)
			}
			return nil, fmt.Errorf("no attribute %s", name)
		}),
		"__sa_is": builtin("__sa_is", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			a, b := args[0], args[1]
			switch a.(type) {
			case *starlark.List, *starlark.Dict, *starlark.Set, *starlark.Function, *starlark.Builtin:
				return starlark.Bool(a == b), nil
			}
			if a.Type() != b.Type() {
				return starlark.False, nil
			}
			eq, err := starlark.Equal(a, b)
			return starlark.Bool(eq), err
		}),
		"__sa_iter": builtin("__sa_iter", func(args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			if s, ok := args[0].(starlark.String); ok {
				var chars []starlark.Value
				for _, r := range string(s) {
					chars = append(chars, starlark.String(string(r)))
				}
				return starlark.NewList(chars), nil
			}
			return args[0], nil
		}),
	}
}

// run lowers and executes src, returning what it printed, or the error.
func run(src string) (string, error) {
	prog, err := Lower("test.py", src)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	pre := testPredeclared(&out)
	p, err := starlark.FileProgram(prog.File, func(name string) bool { _, ok := pre[name]; return ok })
	if err != nil {
		return "", fmt.Errorf("compile: %w", err)
	}
	th := &starlark.Thread{Name: "test"}
	th.SetMaxExecutionSteps(1e7)
	_, err = p.Init(th, pre)
	return out.String(), err
}

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
			return pyRepr(starlark.Float(v))
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
