package pyfront

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/vm/starlark"
)

// attr is how x.name is lowered, which depends on builtins.CompatAttrs.
func attr(x, name string) string {
	if contract.CompatAttr(name) {
		return `__sa_attr(` + x + `, "` + name + `")`
	}
	return x + "." + name
}

// TestLowerText pins the lowering of each construct, printed as Starlark.
func TestLowerText(t *testing.T) {
	tests := []struct{ src, want string }{
		{"import a\n", `a = __sa_import("a")`},
		{"import a as b\n", `b = __sa_import("a")`},
		{"import a.b.c\n", `a = __sa_import("a.b.c", True)`},
		{"import a.b as c\n", `c = __sa_import("a.b")`},
		{"from a.b import c\n", `c = __sa_import("a.b").c`},
		{"from a import b, c as d\n", "__sa_t1 = __sa_import(\"a\")\nb = __sa_t1.b\nd = __sa_t1.c"},
		{"from __future__ import annotations\nx = 1\n", "x = 1"},
		{"y = x ** 2\n", `y = __sa_pow(x, 2)`},
		{"x **= 2\n", `x = __sa_pow(x, 2)`},
		{"y = x * 2\n", `y = __sa_mul(x, 2)`},
		{"y = x * 2.0\n", `y = (x * 2.0)`},
		{"y = -0.5 * x\n", `y = (-0.5 * x)`},
		{"y = 3 * 4\n", `y = (3 * 4)`},
		{"x *= n\n", `x = __sa_mul((__sa_iop % x), n)`},
		{"x |= s\n", `x = ((__sa_iop % x) | s)`},
		{"x -= 1\n", `x -= 1`},
		{"x *= 1.5\n", `x *= 1.5`},
		{"a[f()] *= 2\n", "__sa_t1 = a\n__sa_t2 = f()\n__sa_t1[__sa_t2] = __sa_mul((__sa_iop % __sa_t1[__sa_t2]), 2)"},
		{"y = a is None\n", `y = (a == None)`},
		{"y = a is not b\n", `y = not __sa_is(a, b)`},
		{"y = a < b < c\n", `y = (__sa_lt[a][b] and __sa_lt[b][c])`},
		{"y = a < f() <= c\n", `y = (lambda __sa_t1: (__sa_lt[a][__sa_t1] and __sa_le[__sa_t1][c]))(f())`},
		{"y = g() < f() < h()\n", `y = (lambda __sa_t1, __sa_t2: (__sa_lt[__sa_t1][__sa_t2] and __sa_lt[__sa_t2][h()]))(g(), f())`},
		{"y = f'{x!r:>{w}} {y=}'\n", `y = __sa_plus[(__sa_fmt(x, "r", (">" + __sa_fmt(w, "", ""))) + " y=")][__sa_fmt(y, "r", "")]`},
		{"y = f'{{a}}'\n", `y = "{a}"`},
		{"for c in s:\n    pass\n", "for c in __sa_loop(s):\n    pass\nif __sa_loop_check():\n    pass"},
		{"for i in range(3):\n    pass\n", "for i in range(3):\n    pass"},
		// A dict's views loop through the runtime, which lets the body
		// assign existing keys; str.split's result loops natively.
		{"for k, v in d.items():\n    pass\n", "for (k, v) in __sa_loop(" + attr("d", "items") + "()):\n    pass\nif __sa_loop_check():\n    pass"},
		{"for w in s.split():\n    pass\n", "for w in " + attr("s", "split") + "():\n    pass"},
		{"y = [c for c in s if c]\n", `y = __sa_loop_check([c for c in __sa_loop(s) if c])`},
		{"y = {1, 2}\n", `y = set([1, 2])`},
		{"y = {x for x in r}\n", `y = set(__sa_loop_check([x for x in __sa_loop(r)]))`},
		{"y = sum(x for x in [1])\n", `y = sum(__sa_genexpr([1], (lambda x: (x,))))`},
		{"y = (x for x in a if x for z in x if z)\n", `y = __sa_genexpr(a, (lambda x: ((x,) if x else ())), (lambda x, z: ((x,) if z else ())))`},
		{"y = (k for k, v in a)\n", `y = __sa_genexpr(a, (lambda __sa_g1: [k for (k, v) in (__sa_g1,)]))`},
		{"def f(a, *b):\n    x = yield a\n    yield from b\n", "def f(a, *b):\n    def __sa_t1(a, b):\n        x = __sa_yield(a)\n        __sa_yield_from(b)\n    return __sa_generator(\"f\", __sa_t1, a, b)"},
		{"def f(a):\n    for x in a:\n        yield x\n", "def f(a):\n    def __sa_t1(a):\n        for x in __sa_loop(a, True):\n            __sa_yield(x)\n        if __sa_loop_check():\n            pass\n    return __sa_generator(\"f\", __sa_t1, a)"},
		{"y = [z for x in a if (z := x)]\n", "if False:\n    z = None\n" + `y = __sa_loop_check([z for x in __sa_loop(a) if __sa_setvar(__sa_globals(), "z", x)])`},
		{"f(**a, k=1)\n", `f(**__sa_kwargs("f", a, ("k", 1)))`},
		{"def f(n):\n    t = 0\n    for i in range(n):\n        t += i\n        t = t + i * 2\n", "def f(n):\n    t = 0\n    for i in range(n):\n        t += i\n        t = (t + __sa_nmul[i][2])"},
		{"def f(n):\n    t = 0\n    t += n\n    t = t + n\n", "def f(n):\n    t = 0\n    t = __sa_iplus[t][n]\n    t = __sa_plus[t][n]"},
		{"def f(n):\n    t = 0\n    t += n > 1\n    return t + t\n", "__sa_k_gt_r_1 = __sa_cmpk(\">\", 1, False)\ndef f(n):\n    t = 0\n    t = __sa_iplus[t][(n in __sa_k_gt_r_1)]\n    return __sa_plus[t][t]"},
		{"def f(n):\n    t = 0\n    return [t + t for t in n]\n", "def f(n):\n    t = 0\n    return __sa_loop_check([__sa_plus[t][t] for t in __sa_loop(n)])"},
		{"range = 1\ndef f(n):\n    for i in range(n):\n        i += i\n", "range = 1\ndef f(n):\n    for i in range(n):\n        i = __sa_iplus[i][i]"},
		{"y = ', '.join(z)\n", `y = __sa_attr(", ", "join")(z)`},
		{"y = s.replace\n", `y = __sa_attr(s, "replace")`},
		{"s.join = 1\n", `s.join = 1`},
		{"y = s.upper()\n", "y = " + attr("s", "upper") + "()"},
		{"a = b = f()\n", "a = f()\nb = a"},
		{"a[0] = b = 1\n", "__sa_t1 = 1\na[0] = __sa_t1\nb = __sa_t1"},
		{"a, *b = c\n", "__sa_t1 = [__sa_v for __sa_v in __sa_star(c)]\n(a,) = __sa_t1[:1]\nb = __sa_t1[1:]"},
		{"*a, b, c = d\n", "__sa_t1 = [__sa_v for __sa_v in __sa_star(d)]\n(b, c) = __sa_t1[0:][-2:]\na = __sa_t1[:-2]"},
		{"y = [*a, 1]\n", `y = __sa_plus[[__sa_v for __sa_v in __sa_star(a)]][[1]]`},
		{"y = {**d, 'k': 1}\n", `y = {__sa_k: __sa_v for (__sa_k, __sa_v) in ([__sa_v for __sa_v in ` + attr("d", "items") + `()] + [("k", 1)])}`},
		{"f(*a, k=1)\n", `f(k=1, *__sa_star(a))`},
		{"f(*a, 1, *b)\n", `f(*__sa_plus[__sa_plus[[__sa_v for __sa_v in __sa_star(a)]][[1]]][[__sa_v for __sa_v in __sa_star(b)]])`},
		{"del d[k]\n", "__sa_del = __sa_delitem(d, k)"},
		{"assert x, 'm'\n", "if not x:\n    __sa_assert(\"m\")"},
		{"assert x\n", "if not x:\n    __sa_assert()"},
		{"@d\ndef f(a, /, b=1, *c, d, **e) -> int:\n    ...\n", "def f(__sa_po_a, b=1, *c, d, **e):\n    a = __sa_po_a\n    pass\nf = d(f)"},
		{"x: int = 5\ny: str\n", "x = 5"},
		{"if __name__ == '__main__':\n    pass\n", "if (\"__main__\" == \"__main__\"):\n    pass"},
		{"if (n := len(a)) > 1:\n    pass\n", "__sa_k_gt_r_1 = __sa_cmpk(\">\", 1, False)\nn = len(a)\nif (n in __sa_k_gt_r_1):\n    pass"},
		{"while (v := f()):\n    g(v)\n", "while True:\n    v = f()\n    if not v:\n        break\n    g(v)"},
		{"for x in y:\n    if x:\n        break\nelse:\n    z()\n", "__sa_t1 = False\nfor x in __sa_loop(y):\n    if x:\n        __sa_t1 = True\n        break\nif __sa_loop_check():\n    pass\nif not __sa_t1:\n    z()"},
		{"for x in y:\n    pass\nelse:\n    z()\n", "for x in __sa_loop(y):\n    pass\nif __sa_loop_check():\n    pass\nz()"},
		{"def f():\n    global g\n    return g\n", "def f():\n    return g"},
		{"x = 0o17 + 0x_f + 1_000 + 10**0\n", "x = (((15 + 15) + 1000) + __sa_pow(10, 0))"},
		{"x = b'a\\x00' + rb'\\n'\n", `x = (b"a\x00" + b"\\n")`},
		{"x = 'a' 'b' \"c\"\n", `x = "abc"`},
		{"print(*a)\n", `print(*__sa_star(a))`},
		{"print(*[1, 2])\n", `print(*[1, 2])`},
	}
	for _, tt := range tests {
		prog, err := Lower("t.py", tt.src)
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		// Every module starts by recording its thread (see prologue).
		got, ok := strings.CutPrefix(strings.TrimSpace(format(prog.File)), "__sa_enter(__sa_box)\n")
		if !ok {
			t.Errorf("%q: lowered module does not start with __sa_enter(__sa_box)", tt.src)
		}
		if got != tt.want {
			t.Errorf("%q:\n got: %s\nwant: %s", tt.src, got, tt.want)
		}
		if _, err := starlark.FileProgram(prog.File, func(string) bool { return true }); err != nil {
			t.Errorf("%q: lowered program does not compile: %v", tt.src, err)
		}
	}
}

func TestImports(t *testing.T) {
	prog, err := Lower("t.py", "import a, b.c\nif x:\n    from d.e import f\ndef g():\n    import h as i\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []Import{{"a", 1}, {"b.c", 1}, {"h", 5}}
	if !reflect.DeepEqual(prog.Imports, want) {
		t.Errorf("got %v, want %v", prog.Imports, want)
	}
	if want := []Import{{"d.e", 3}}; !reflect.DeepEqual(prog.Deferred, want) {
		t.Errorf("deferred: got %v, want %v", prog.Deferred, want)
	}
}

// TestInplaceGuard checks that augmented assignments are guarded for
// in-place methods in programs that define one, or after a step that did.
func TestInplaceGuard(t *testing.T) {
	const guarded = "x = ((__sa_iop % x) - 2)"
	define := "class C:\n    def __isub__(self, o):\n        return self\nx -= 2\n"
	prog, err := Lower("t.py", define)
	if err != nil {
		t.Fatal(err)
	}
	text := format(prog.File)
	if !strings.Contains(text, guarded) || !strings.Contains(text, "__sa_inplace_classes = True") {
		t.Errorf("a program defining __isub__ is not guarded or does not mark it:\n%s", text)
	}
	prog, err = LowerIn("t.py", "x -= 2\n", func(name string) bool { return name == "__sa_inplace_classes" })
	if err != nil {
		t.Fatal(err)
	}
	if text := format(prog.File); !strings.Contains(text, guarded) {
		t.Errorf("a step after one defining __isub__ is not guarded:\n%s", text)
	}
	prog, err = Lower("t.py", "x -= 2\n")
	if err != nil {
		t.Fatal(err)
	}
	if text := format(prog.File); strings.Contains(text, "__sa_iop") {
		t.Errorf("a program without in-place methods is guarded:\n%s", text)
	}
}

// TestDeferredImports checks which imports wait for the program to reach
// them: those an if statement or a try catching ImportError guards.
func TestDeferredImports(t *testing.T) {
	tests := []struct {
		src               string
		imports, deferred []string
	}{
		{"import numpy\n", []string{"numpy"}, nil},
		{"if TYPE_CHECKING:\n    import numpy\n", nil, []string{"numpy"}},
		{"try:\n    import numpy\nexcept ImportError:\n    numpy = None\n", nil, []string{"numpy"}},
		{"try:\n    import numpy\nexcept (KeyError, ModuleNotFoundError):\n    pass\n", nil, []string{"numpy"}},
		{"try:\n    import numpy\nexcept:\n    pass\n", nil, []string{"numpy"}},
		{"try:\n    import numpy\nexcept KeyError:\n    pass\n", []string{"numpy"}, nil},
		{"try:\n    import numpy\nfinally:\n    pass\n", []string{"numpy"}, nil},
		{"try:\n    pass\nexcept ImportError:\n    import numpy\n", []string{"numpy"}, nil},
		{"def f():\n    try:\n        from a.b import c\n    except Exception:\n        import d\n", []string{"d"}, []string{"a.b"}},
	}
	names := func(imps []Import) []string {
		var out []string
		for _, imp := range imps {
			out = append(out, imp.Module)
		}
		return out
	}
	for _, tt := range tests {
		prog, err := Lower("t.py", tt.src)
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		if got := names(prog.Imports); !reflect.DeepEqual(got, tt.imports) {
			t.Errorf("%q: imports %v, want %v", tt.src, got, tt.imports)
		}
		if got := names(prog.Deferred); !reflect.DeepEqual(got, tt.deferred) {
			t.Errorf("%q: deferred %v, want %v", tt.src, got, tt.deferred)
		}
	}
}

// TestRuntimeErrorLines checks that a runtime error in lowered code is
// reported at the user's line.
func TestRuntimeErrorLines(t *testing.T) {
	tests := []struct {
		src  string
		line int32
	}{
		{"x = 1\ny = 2\nz = {}['k']\n", 3},
		{"def f(a):\n    return a + 'x'\n\nf(1)\n", 2},
		{"s = 0\nfor c in 5:\n    s += 1\n", 2},
		{"x = 'a'\ny = f'{x}' + 1\n", 2},
		{"a = 1\nb = a < 2 < []\n", 2},
		{"x = [1]\ny = x ** 2\n", 2},
	}
	for _, tt := range tests {
		_, err := run(tt.src)
		var ee *starlark.EvalError
		if !errors.As(err, &ee) {
			t.Errorf("%q: got %v, want a runtime error", tt.src, err)
			continue
		}
		// The innermost frame may be a builtin: use the innermost frame
		// inside the program.
		var line int32
		for i := len(ee.CallStack) - 1; i >= 0; i-- {
			if fr := ee.CallStack[i]; fr.Pos.Filename() == "test.py" {
				line = fr.Pos.Line
				break
			}
		}
		if line != tt.line {
			t.Errorf("%q: error at line %d, want %d (%v)", tt.src, line, tt.line, err)
		}
	}
}
