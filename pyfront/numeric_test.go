package pyfront

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestNumericNames(t *testing.T) {
	cases := []struct {
		src  string
		want string // sorted, comma-separated numeric locals of f
	}{
		{"def f(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t", "i,t"},
		{"def f(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t", ""},
		{"def f(s):\n    for i in range(3):\n        s = s + s\n    return s", "i"},
		{"def f():\n    a = 1\n    b = a * 2 + len('x')\n    c = b if a else 3.5\n    d = 'x'\n    e = a < b\n    return a", "a,b,c,e"},
		{"def f():\n    a = 1\n    a = g()\n    return a", ""},
		{"def f():\n    x, y = 1, 2\n    return x", ""},
		{"def f():\n    global t\n    t = 0\n    t += 1", ""},
		{"def f():\n    n = 0\n    while (m := n) < 3:\n        n += 1", "n"},
		// A nested function can rebind a local.
		{"def f():\n    t = 0\n    def g():\n        nonlocal t\n        t = 'x'\n    g()\n    t += 1", ""},
		// A shadowed builtin is not trusted.
		{"len = lambda s: s\ndef f():\n    a = len('x')\n    return a", ""},
		{"def f():\n    a = 0\n    try:\n        a += 1\n    except ValueError as e:\n        a = -1\n    return a", "a"},
	}
	for _, c := range cases {
		a := new(arena)
		mod, err := parseFile(c.src, a)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		shadowed := map[string]bool{}
		boundNames(mod, shadowed, a.has)
		var fn *FuncDef
		for _, s := range mod {
			if d, ok := s.(*FuncDef); ok && d.Name == "f" {
				fn = d
			}
		}
		got := strings.Join(slices.Sorted(maps.Keys(numericNames(fn.Params, fn.Body, func(n string) bool { return shadowed[n] }, false, a))), ",")
		if got != c.want {
			t.Errorf("%q: numeric %q, want %q", c.src, got, c.want)
		}
	}
}
