package pyfront

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/vm/starlark"
)

// FuzzLower checks that Lower never panics, that its errors are *Error,
// and that every program it returns compiles.
func FuzzLower(f *testing.F) {
	files, _ := filepath.Glob("testdata/run/*.py")
	for _, file := range files {
		src, _ := os.ReadFile(file)
		f.Add(string(src))
	}
	for _, src := range syntaxErrors {
		f.Add(src)
	}
	f.Add(benchSource)
	f.Fuzz(func(t *testing.T, src string) {
		prog, err := Lower("fuzz.py", src)
		if err != nil {
			checkLowerError(t, err)
			return
		}
		if _, err := starlark.FileProgram(prog.File, func(string) bool { return true }); err != nil {
			t.Fatalf("lowered program does not compile: %v\nsource:\n%s\nlowered:\n%s", err, src, format(prog.File))
		}
	})
}

// nestWrappers are the expression constructs FuzzNesting stacks: n
// levels of one are prefix×n, the inner expression, suffix×n.
var nestWrappers = []struct{ prefix, suffix string }{
	{"-", ""},
	{"~", ""},
	{"not ", ""},
	{"1 if 1 else ", ""},
	{"(1 if ", " else 1)"},
	{"", " if 1 else 1"},
	{"", "+1"},
	{"1+", ""},
	{"", "*a"},
	{"", " and 1"},
	{"", " or 0"},
	{"", " < 2"},
	{"", " == f(a)"},
	{"2**", ""},
	{"", "**2"},
	{"f(", ")"},
	{"f(*a, ", ")"},
	{"", "(1)"},
	{"", "[0]"},
	{"", "[1:2]"},
	{"", ".b"},
	{"lambda: ", ""},
	{"lambda a=", ": a"},
	{"[", "]"},
	{"[*a, ", "]"},
	{"{", "}"},
	{"{1: ", "}"},
	{"{**a, 1: ", "}"},
	{"(", ",)"},
	{"[", " for a in b]"},
	{"[a for a in b if ", "]"},
	{"(a := ", ")"},
	{"f'{", "}'"},
	{"f'{a}{", "}'"},
	{"(yield ", ")"},
	{"await ", ""},
	{"*", ""},
}

// nestStatements are the statement constructs FuzzNesting wraps around
// the expression statement, n times.
var nestStatements = []func(body string, n int) string{
	func(body string, n int) string { // elif chain
		return "if a: pass\n" + strings.Repeat("elif a: pass\n", n) + "else:\n" + indentLines(body)
	},
	func(body string, n int) string { // except chain
		return "try:\n" + indentLines(body) + strings.Repeat("except E: pass\n", max(n, 1))
	},
	func(body string, n int) string { // decorators
		return strings.Repeat("@d\n", n) + "def f():\n" + indentLines(body)
	},
	func(body string, n int) string { // nested blocks, each kind in turn
		heads := []string{"if a:", "while a:", "for a in b:", "def g():", "class C:", "try:", "with a:"}
		for i := range min(n, 120) {
			h := heads[i%len(heads)]
			body = h + "\n" + indentLines(body)
			if h == "try:" {
				body += "finally: pass\n"
			}
		}
		return body
	},
}

func indentLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString("    " + l)
		}
	}
	return b.String()
}

// nestingProgram builds FuzzNesting's program: spec is a list of
// (kind, count high byte, count low byte) triples, outermost first;
// kinds past the expression wrappers are statement constructs. leaf is
// the innermost expression. The total count is capped so that a program
// stays under a megabyte.
func nestingProgram(spec []byte, leaf string) string {
	type level struct{ kind, n int }
	var exprs, stmts []level
	total := 0
	for i := 0; i+2 < len(spec) && total < 6000; i += 3 {
		k := int(spec[i]) % (len(nestWrappers) + len(nestStatements))
		n := min(int(spec[i+1])<<8|int(spec[i+2]), 6000-total)
		total += n
		if k < len(nestWrappers) {
			exprs = append(exprs, level{k, n})
		} else {
			stmts = append(stmts, level{k - len(nestWrappers), n})
		}
	}
	var b strings.Builder
	b.WriteString("x = ")
	for _, l := range exprs {
		b.WriteString(strings.Repeat(nestWrappers[l.kind].prefix, l.n))
	}
	b.WriteString(leaf)
	for i := len(exprs) - 1; i >= 0; i-- {
		b.WriteString(strings.Repeat(nestWrappers[exprs[i].kind].suffix, exprs[i].n))
	}
	body := b.String() + "\n"
	for i := len(stmts) - 1; i >= 0; i-- {
		body = nestStatements[stmts[i].kind](body, stmts[i].n)
	}
	return "a = [1]\nb = [1]\nd = lambda f: f\nf = lambda *a, **k: 1\n" + body
}

// FuzzNesting stacks constructs that nest or chain, to depths around and
// far beyond the limit: lowering must never panic or overflow the
// stack, it must answer with a program or an *Error, and the Starlark
// tree of a program must stay within maxStarlarkDepth and compile.
func FuzzNesting(f *testing.F) {
	// Every construct alone, just under, at and far beyond the limit.
	for k := range len(nestWrappers) + len(nestStatements) {
		for _, n := range []int{3, 240, 990, 1001, 5000} {
			f.Add([]byte{byte(k), byte(n >> 8), byte(n)}, "a")
		}
	}
	// Pairs: one construct inside another, their depths adding.
	for k := range len(nestWrappers) {
		k2 := (k*7 + 3) % len(nestWrappers)
		f.Add([]byte{byte(k), 0x01, 0xf4, byte(k2), 0x01, 0xf4}, "a")
	}
	f.Add([]byte{byte(len(nestWrappers)), 0x01, 0xf4, 6, 0x01, 0xf4}, "a")
	f.Add([]byte{byte(len(nestWrappers) + 3), 0, 99, 3, 0x03, 0x80}, "a")
	f.Fuzz(func(t *testing.T, spec []byte, leaf string) {
		if len(leaf) > 1000 {
			return
		}
		src := nestingProgram(spec, leaf)
		prog, err := Lower("fuzz.py", src)
		if err != nil {
			checkLowerError(t, err)
			return
		}
		if d := starlarkDepth(prog.File); d > maxStarlarkDepth {
			t.Fatalf("a Starlark tree %d deep (bound %d) from spec %v leaf %q", d, maxStarlarkDepth, spec, leaf)
		}
		if _, err := starlark.FileProgram(prog.File, func(string) bool { return true }); err != nil {
			t.Fatalf("lowered program does not compile: %v\nspec %v leaf %q", err, spec, leaf)
		}
	})
}

// checkLowerError fails the test unless err is the front end's own error,
// with a line the model can be shown.
func checkLowerError(t *testing.T, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error of type %T: %v", err, err)
	}
	if e.Line < 1 {
		t.Fatalf("error without a line: %v", e)
	}
}
