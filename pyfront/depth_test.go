package pyfront

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// nesting is a construct that can nest or chain without bound: gen
// returns a program with n levels or links of it.
type nesting struct {
	name string
	gen  func(n int) string
	// brackets: nesting that needs brackets, refused by the scanner at
	// 200 levels with CPython's "too many nested parentheses" (or, for
	// blocks, at 100 levels of indentation) before the depth limit.
	brackets bool
	// min is the least depth the limit must allow (the default
	// maxDepth/4: what it costs is the same order for every construct).
	min int
}

func rep(s string, n int) string { return strings.Repeat(s, n) }

func join(s, sep string, n int) string {
	if n < 1 {
		n = 1
	}
	return strings.Repeat(s+sep, n-1) + s
}

// nestings lists every construct of the grammar that recurses or chains.
var nestings = []nesting{
	{name: "unary minus", gen: func(n int) string { return "x = " + rep("-", n) + "1\n" }},
	{name: "unary mixed", gen: func(n int) string { return "x = " + rep("-+~", n/3) + rep("-", n%3) + "1\n" }},
	{name: "not", gen: func(n int) string { return "x = " + rep("not ", n) + "1\n" }},
	{name: "ternary else chain", gen: func(n int) string { return "x = " + rep("1 if 1 else ", n) + "1\n" }},
	{name: "ternary condition", gen: func(n int) string { return "x = 1 if " + rep("(1 if ", n) + "1" + rep(" else 1)", n) + " else 1\n" }, brackets: true},
	{name: "plus chain", gen: func(n int) string { return "x = " + join("1", "+", n+1) + "\n" }},
	{name: "string plus chain", gen: func(n int) string { return "x = " + join("'a'", " + ", n+1) + "\n" }},
	{name: "name plus chain", gen: func(n int) string { return "a = 1\nx = " + join("a", "+", n+1) + "\n" }},
	{name: "mixed binary chain", gen: func(n int) string {
		return "a = 1\nx = a" + rep(" * a - a | a & a ^ a << 1 >> 1 // 1 % 1 + a", n) + "\n"
	}},
	{name: "power chain", gen: func(n int) string { return "x = " + join("1", "**", n+1) + "\n" }},
	{name: "and chain", gen: func(n int) string { return "x = " + join("1", " and ", n+1) + "\n" }},
	{name: "or chain", gen: func(n int) string { return "x = " + join("0", " or ", n+1) + "\n" }},
	{name: "comparison chain", gen: func(n int) string { return "a = 1\nx = " + join("a", " < ", n+1) + "\n" }, min: maxDepth / cmpLevels / 2},
	{name: "comparison chain of calls", gen: func(n int) string { return "a = 1\nx = " + join("abs(a)", " < ", n+1) + "\n" }, min: maxDepth / cmpLevels / 2},
	{name: "comparison chain of chains", gen: func(n int) string { return "a = 1\nx = " + rep("a + a < ", n/4) + join("a", " + ", n/2) + "\n" }},
	{name: "nested calls", gen: func(n int) string { return "x = " + rep("abs(", n) + "1" + rep(")", n) + "\n" }, brackets: true},
	{name: "call chain", gen: func(n int) string { return "f = lambda: f\nx = f" + rep("()", n) + "\n" }},
	{name: "subscript chain", gen: func(n int) string { return "a = [0]\na[0] = a\nx = a" + rep("[0]", n) + "\n" }},
	{name: "slice chain", gen: func(n int) string { return "a = [0]\nx = a" + rep("[0:1]", n) + "\n" }},
	{name: "attribute chain", gen: func(n int) string { return "import math\nx = math" + rep(".pi.real", n/2) + rep(".real", n%2) + "\n" }},
	{name: "lambda chain", gen: func(n int) string { return "x = " + rep("lambda: ", n) + "1\n" }},
	{name: "lambda defaults", gen: func(n int) string { return "x = " + rep("lambda a=", n) + "1" + rep(": a", n) + "\n" }},
	{name: "nested lists", gen: func(n int) string { return "x = " + rep("[", n) + rep("]", n) + "\n" }, brackets: true},
	{name: "nested dicts", gen: func(n int) string { return "x = " + rep("{1: ", n) + "1" + rep("}", n) + "\n" }, brackets: true},
	{name: "starred list", gen: func(n int) string { return "a = [1]\nx = [" + rep("*a, ", n) + "]\n" }},
	{name: "starred tuple", gen: func(n int) string { return "a = [1]\nx = " + rep("*a, ", n) + "\n" }},
	{name: "starred set", gen: func(n int) string { return "a = [1]\nx = {" + rep("*a, ", n) + "}\n" }},
	{name: "dict unpacking", gen: func(n int) string { return "a = {1: 2}\nx = {" + rep("**a, ", n) + "}\n" }},
	{name: "starred arguments", gen: func(n int) string { return "a = [1]\nx = max(" + rep("*a, ", n) + ")\n" }},
	{name: "comprehension ifs", gen: func(n int) string { return "x = [a for a in [1] " + rep("if a ", n) + "]\n" }},
	{name: "comprehension fors", gen: func(n int) string { return "x = [1 " + rep("for a in [1] ", n) + "]\n" }, min: maxCompFor},
	{name: "generator fors", gen: func(n int) string { return "x = list(1 " + rep("for a in [1] ", n) + ")\n" }, min: maxCompFor},
	{name: "f-string fields", gen: func(n int) string { return "a = 1\nx = f'" + rep("{a}", n) + "'\n" }},
	{name: "f-string spec fields", gen: func(n int) string { return "a = 1\nx = f'{a:" + rep("{a}", n) + "}'\n" }},
	{name: "implicit f-string concatenation", gen: func(n int) string { return "a = 1\nx = (" + rep("f'{a}' ", n) + ")\n" }},
	{name: "nested blocks", gen: func(n int) string {
		// Level i takes i spaces: a million levels would take 500 GB.
		n = min(n, 3000)
		var b strings.Builder
		for i := range n {
			b.WriteString(rep(" ", i) + "if 1:\n")
		}
		b.WriteString(rep(" ", n) + "x = 1\n")
		return b.String()
	}, brackets: true},
	{name: "elif chain", gen: func(n int) string { return "a = 0\nif a: x = 0\n" + rep("elif a: x = 0\n", n) + "else: x = 1\n" }},
	{name: "except chain", gen: func(n int) string {
		return "try:\n    x = 1\n" + rep("except KeyError:\n    pass\n", n) + "except ValueError:\n    pass\n"
	}},
	{name: "decorators", gen: func(n int) string { return "d = lambda f: f\n" + rep("@d\n", n) + "def f(): pass\nx = 1\n" }},
	{name: "walrus chain", gen: func(n int) string { return "x = " + rep("(a := ", n) + "1" + rep(")", n) + "\n" }, brackets: true},
	{name: "ternaries of chains", gen: func(n int) string {
		// A chain at the bottom of a ternary chain: their depths add.
		return "x = " + rep("1 if 1 else ", n/2) + join("1", "+", n/2+1) + "\n"
	}},
	{name: "chain with a deep second operand", gen: func(n int) string {
		// The second operand of a left-deep chain sits one level above
		// its first: a unary chain there adds the chain's length.
		return "x = 1+" + rep("-", n/2) + "1" + rep("+1", n/2) + "\n"
	}},
	{name: "chain with a deep first operand", gen: func(n int) string {
		// The first operand is the deepest leaf of a left-deep chain.
		return "x = " + rep("-", n/2) + "1" + rep("+1", n/2) + "\n"
	}},
	{name: "calls of chains", gen: func(n int) string { return "x = abs(" + join("1", "+", n) + ")" + rep("+1", n) + "\n" }},
}

// starlarkDepth is the depth of a Starlark syntax tree: what
// go.starlark.net's resolver and compiler recurse over.
func starlarkDepth(f *syntax.File) int {
	depth, deepest := 0, 0
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			depth--
			return false
		}
		depth++
		deepest = max(deepest, depth)
		return true
	})
	return deepest
}

// tooDeep reports whether err is the refusal of code nested too deeply
// (or, for nesting that needs brackets or indentation, the scanner's).
func isTooDeep(err error, brackets bool) bool {
	var e *Error
	if !errors.As(err, &e) || e.NeedsPython || e.Type != "" {
		if brackets && e != nil && e.Type == "IndentationError" && e.Msg == "too many levels of indentation" {
			return true
		}
		return false
	}
	if strings.HasPrefix(e.Msg, "the code is nested too deeply: ") {
		return true
	}
	return brackets && e.Msg == "too many nested parentheses"
}

// maxStarlarkDepth bounds the Starlark tree of any program the front
// end accepts (TestNestingLimits measures the deepest).
const maxStarlarkDepth = 3 * maxDepth

// TestNestingLimits drives every construct that nests or chains to a
// million levels, which must be refused quickly with a clear error (the
// unary chain used to kill the process with a Go stack overflow), and
// finds the deepest that lowers: it must compile, its Starlark tree must
// stay bounded, and one level more must be refused.
func TestNestingLimits(t *testing.T) {
	deepest := 0
	for _, c := range nestings {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := Lower("deep.py", c.gen(1_000_000))
			if !isTooDeep(err, c.brackets) {
				t.Fatalf("1,000,000 levels: got %v, want a 'nested too deeply' error", err)
			}
			// Not a performance assertion: the old front end crashed or
			// took minutes here; the scan alone takes milliseconds, so
			// only a regression, not -race or a loaded machine, reaches
			// the bound.
			if d := time.Since(start); d > time.Minute {
				t.Errorf("1,000,000 levels took %v", d)
			}
			var e *Error
			errors.As(err, &e)
			if e.Line < 1 || e.Col < 1 {
				t.Errorf("error without a position: %+v", e)
			}
			// The deepest n that lowers, by bisection: ok(lo), !ok(hi).
			ok := func(n int) bool {
				_, err := Lower("deep.py", c.gen(n))
				if err != nil && !isTooDeep(err, c.brackets) {
					t.Fatalf("%d levels: %v", n, err)
				}
				return err == nil
			}
			lo, hi := 1, 4*maxDepth
			if !ok(lo) || ok(hi) {
				t.Fatalf("ok(%d)=%v ok(%d)=%v", lo, ok(lo), hi, ok(hi))
			}
			for lo+1 < hi {
				if m := (lo + hi) / 2; ok(m) {
					lo = m
				} else {
					hi = m
				}
			}
			min := c.min
			if min == 0 {
				min = maxDepth / 4
			}
			if c.brackets {
				min = 90 // 100 levels of indentation, 200 brackets
			}
			if lo < min {
				t.Errorf("only %d levels lower, want at least %d", lo, min)
			}
			src := c.gen(lo)
			prog, err := Lower("deep.py", src)
			if err != nil {
				t.Fatal(err)
			}
			d := starlarkDepth(prog.File)
			if d > maxStarlarkDepth {
				t.Errorf("%d levels lower to a Starlark tree %d deep, more than %d", lo, d, maxStarlarkDepth)
			}
			if _, err := starlark.FileProgram(prog.File, func(string) bool { return true }); err != nil {
				t.Fatalf("%d levels do not compile: %v", lo, err)
			}
			deepest = max(deepest, d)
			t.Logf("deepest accepted: %d levels, Starlark tree %d deep", lo, d)
		})
	}
	t.Logf("deepest Starlark tree: %d (bound %d)", deepest, maxStarlarkDepth)
}

// TestNestingMessage checks the message a model gets: what nests, the
// limit, and what to do.
func TestNestingMessage(t *testing.T) {
	_, err := Lower("deep.py", "a = 1\n\nx = "+rep("-", 1_000_000)+"a\n")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v", err)
	}
	want := fmt.Sprintf("line 3: SyntaxError: the code is nested too deeply: unary operators (-x, +x, ~x) nested more than %d levels deep; split the expression into several statements, computing parts into variables", maxDepth)
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
	// In an f-string field the message is not prefixed with "f-string:".
	_, err = Lower("deep.py", "a = 1\nx = f'{"+rep("-", 1_000_000)+"a}'\n")
	if err == nil || !strings.Contains(err.Error(), "SyntaxError: the code is nested too deeply: unary") {
		t.Errorf("in an f-string: %v", err)
	}
}
