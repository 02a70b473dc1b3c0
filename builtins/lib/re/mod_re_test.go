package re

import (
	"testing"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// TestGroupNumbering covers what the pattern translator's single scan of
// escapes and character classes decides: which "(" open capturing
// groups, their Python numbers beside named groups, and \Z outside a
// class. The wanted values are CPython 3.11's repr of each expression.
func TestGroupNumbering(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{`re.search(r"(a)(?P<x>b)(c)(?P=x)", "zabcb").groups()`, `('a', 'b', 'c')`},
		{`re.search(r"(a)(?P<x>b)(c)(?P=x)", "zabcb").groupdict()`, `{'x': 'b'}`},
		{`re.search(r"[(](\w+)[)]", "f(xy)").groups()`, `('xy',)`},
		{`re.search(r"\((\w)\)(x)", "(a)x").groups()`, `('a', 'x')`},
		{`re.findall(r"[]()]+|(z)", "]()z")`, `['', 'z']`},
		{`re.findall(r"[^]()]+", "a]b(c)d")`, `['a', 'b', 'c', 'd']`},
		{`re.search(r"(?<=a)(b)(?<!c)(?:d)(e)", "abde").groups()`, `('b', 'e')`},
		{`re.search("(x) # (not a group)\n (y)", "xy", re.X).groups()`, `('x', 'y')`},
		{`re.search(r"(x) [#] (y)", "x#y", re.X).groups()`, `('x', 'y')`},
		{`re.search(r"(a)\Z", "ba").span(1)`, `(1, 2)`},
		{`re.search(r"(a)\Z", "ab")`, `None`},
		{`re.compile(r"(a)[(](?P<b>b)").groups`, `2`},
		{`re.compile(r"(a)[(](?P<b>b)").groupindex["b"]`, `2`},
		{`re.sub(r"(?P<w>\w)(\d)", r"\2\g<w>", "a1 b2")`, `'1a 2b'`},
	} {
		th := &starlark.Thread{Name: "re"}
		v, err := starlark.EvalOptions(&syntax.FileOptions{}, th, "case.py", c.expr, starlark.StringDict{"re": Module()})
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if got := core.Repr(v); got != c.want {
			t.Errorf("%s = %s, want %s", c.expr, got, c.want)
		}
	}
}
