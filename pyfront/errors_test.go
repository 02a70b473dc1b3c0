package pyfront

import (
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/internal/cpythontest"
)

// syntaxErrors are invalid Python whose message and line must match
// CPython's compile().
var syntaxErrors = []string{
	"x = (1, 2\n",
	"x = [1, 2)\n",
	"x = 1)\n",
	"if x\n    pass\n",
	"if x:\npass\n",
	"def f():\nreturn 1\n",
	"for x in y:\nprint(x)\n",
	"  x = 1\n",
	"if x:\n        a = 1\n    b = 2\n",
	"x = 'abc\n",
	"x = '''abc\n\n",
	"return 1\n",
	"break\n",
	"continue\n",
	"def f():\n    yield 1\nyield 2\n",
	"f() = 1\n",
	"1 = x\n",
	"None = 1\n",
	"a + 1 = 2\n",
	"f() += 1\n",
	"del f()\n",
	"for f() in x: pass\n",
	"x = 1 +\n",
	"print 'hello'\n",
	"x = 09\n",
	"x = 1abc\n",
	"x = 0xg\n",
	"f(a=1, 2)\n",
	"f(**k, *a)\n",
	"f(a=1, a=2)\n",
	"def f(a=1, b): pass\n",
	"def f(a, a): pass\n",
	"def f(*): pass\n",
	"x = f'{}'\n",
	"x = f'{a!x}'\n",
	"x = f'}'\n",
	"x = f'{a'\n",
	"x = b'caf\u00e9'\n",
	"x = b'a' 'b'\n",
	"x := 5\n",
	"a, *b, *c = d\n",
	"*a = b\n",
	"nonlocal x\n",
	"x = 1 if y\n",
	"f(x for x in y, 1)\n",
	"from . import x\n",
	"x = $\n",
	"x = a \\ b\n",
	"x = \u2026\n",
	"class C:\n    return 1\n",
	"try:\n    pass\n",
	"x = {1: 2, 3}\n",
	"f(a.b=1)\n",
	"import a.b as\n",
	"if True:\n\tx = 1\n        y = 2\n",
}

func TestSyntaxErrorsLikeCPython(t *testing.T) {
	script := `
import json, sys
out = []
for src in json.load(sys.stdin):
    try:
        compile(src, "<t>", "exec")
        out.append(None)
    except SyntaxError as e:
        out.append([type(e).__name__, e.lineno, e.msg])
print(json.dumps(out))
`
	in, _ := json.Marshal(syntaxErrors)
	raw := cpythontest.Golden(t, "testdata/syntax_errors.json", func(py string) ([]byte, error) {
		cmd := exec.Command(py, "-c", script)
		cmd.Stdin = strings.NewReader(string(in))
		return cmd.Output()
	})
	var want []*[3]any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(syntaxErrors) {
		t.Fatalf("testdata/syntax_errors.json has %d results for %d cases: regenerate it (go test ./pyfront -run TestSyntaxErrorsLikeCPython -update)", len(want), len(syntaxErrors))
	}
	for i, src := range syntaxErrors {
		w := want[i]
		_, err := Lower("t.py", src)
		var e *Error
		if src == "from . import x\n" {
			// Valid Python; relative imports are refused by the front end.
			if !errors.As(err, &e) || e.Msg != "relative imports are not supported" {
				t.Errorf("%q: got %v", src, err)
			}
			continue
		}
		if w == nil {
			t.Errorf("%q: CPython accepts it; fix the table", src)
			continue
		}
		if !errors.As(err, &e) {
			t.Errorf("%q: got %v, want %s at line %v: %s", src, err, w[0], w[1], w[2])
			continue
		}
		typ := e.Type
		if typ == "" {
			typ = "SyntaxError"
		}
		if e.NeedsPython || typ != w[0] || float64(e.Line) != w[1] || e.Msg != w[2] {
			t.Errorf("%q:\n got %s line %d: %s (needsPython=%v)\nwant %s line %v: %s", src, typ, e.Line, e.Msg, e.NeedsPython, w[0], w[1], w[2])
		}
	}
}

// TestIntLiteralLimit: literals at CPython's limit, and numbers that are
// not decimal integers, are read whatever their length.
func TestIntLiteralLimit(t *testing.T) {
	for _, src := range []string{
		"x = " + strings.Repeat("7", 4300) + "\n",
		"x = 0x" + strings.Repeat("f", 5000) + "\n",
		"x = 0b" + strings.Repeat("1", 5000) + "\n",
		"x = 1." + strings.Repeat("5", 5000) + "\n",
		"x = " + strings.Repeat("5", 5000) + "e3\n",
	} {
		if _, err := Lower("t.py", src); err != nil {
			t.Errorf("%.20q...: %v", src, err)
		}
	}
}

// TestLowerErrors covers what is valid Python but not lowered, and the
// dunder ban.
func TestLowerErrors(t *testing.T) {
	tests := []struct {
		src   string
		line  int
		typ   string
		needs bool
		msg   string
	}{
		{"class A(B, C):\n    pass\n", 1, "", true, "multiple inheritance is not supported by the Starlark engine"},
		{"class A(metaclass=M):\n    pass\n", 1, "", true, "class keyword arguments (metaclass=...) is not supported by the Starlark engine"},
		{"class A:\n    if x:\n        global y\n        y = 1\n", 2, "", true, "a global declaration in a class body is not supported by the Starlark engine"},
		{"class A:\n    class B:\n        pass\n", 2, "", true, "this statement in a class body is not supported by the Starlark engine"},
		{"def f():\n    return super().g()\n", 2, "", true, "super() outside a method is not supported by the Starlark engine"},
		{"class A(B):\n    def f(self):\n        return super(B, self).f()\n", 3, "", true, "super() naming a class other than the enclosing one is not supported by the Starlark engine"},
		{"try:\n    @d\n    def f():\n        pass\nexcept E:\n    pass\n", 3, "", true, "a decorated def inside a try statement at module level is not supported by the Starlark engine"},
		{"class A:\n    def f(self):\n        return self.__dict__\n", 3, "AttributeError", false, "access to attribute '__dict__' is not allowed"},
		{"class A:\n    __slots__ = ()\n", 2, "NameError", false, "access to '__slots__' is not allowed"},
		{"class A:\n    def __getattribute__(self, n):\n        pass\n", 2, "NameError", false, "access to '__getattribute__' is not allowed"},
		{"def __init__(self):\n    pass\n", 1, "NameError", false, "access to '__init__' is not allowed"},
		{"try:\n    pass\nexcept E as e:\n    x = e.__traceback__\n", 4, "AttributeError", false, "access to attribute '__traceback__' is not allowed"},
		{"class A:\n    pass\nx = A().__dict__\n", 3, "AttributeError", false, "access to attribute '__dict__' is not allowed"},
		{"x = type(y).__subclasses__()\n", 1, "AttributeError", false, "access to attribute '__subclasses__' is not allowed"},
		{"class C:\n    with m:\n        pass\n", 2, "", true, "this statement in a class body is not supported by the Starlark engine"},
		{"def g():\n    return [(yield x) for x in y]\n", 2, "", false, "'yield' inside a comprehension"},
		{"def g():\n    try:\n        yield 1\n    finally:\n        print()\n", 3, "", true, "a yield inside try/finally, or under a handler of GeneratorExit, is not supported by the Starlark engine"},
		{"def g():\n    while True:\n        try:\n            x = yield\n        except (ValueError, GeneratorExit):\n            pass\n", 4, "", true, "a yield inside try/finally, or under a handler of GeneratorExit, is not supported by the Starlark engine"},
		{"class A:\n    y = [(z := x) for x in r]\n", 2, "", false, "assignment expression within a comprehension cannot be used in a class body"},
		{"y = [(x := 1) for x in r]\n", 1, "", false, "assignment expression cannot rebind comprehension iteration variable 'x'"},
		{"async def g():\n    await x\n", 1, "", true, "async def is not supported by the Starlark engine"},
		{"match x:\n    case 1:\n        pass\n", 1, "", true, "the match statement is not supported by the Starlark engine"},
		{"x = 1j\n", 1, "", true, "complex number 1j is not supported by the Starlark engine"},
		{"from m import *\n", 1, "", true, "from m import * is not supported by the Starlark engine"},
		{"class A:\n    x = 1\n    del x\n", 3, "", true, "this statement in a class body is not supported by the Starlark engine"},
		{"a[1:2] += b\n", 1, "", true, "slice assignment is not supported by the Starlark engine"},
		{"for a[1:2] in b:\n    pass\n", 1, "", true, "slice assignment is not supported by the Starlark engine"},
		{"x = 0\ndef f():\n    nonlocal x\n    x += 1\n", 3, "", false, "no binding for nonlocal 'x' found"},
		{"def f():\n    def g():\n        nonlocal y\n        y = 1\n", 3, "", false, "no binding for nonlocal 'y' found"},
		{"f = lambda: (z := 1)\n", 1, "", true, "an assignment expression (:=) in a lambda is not supported by the Starlark engine"},
		{"x = a[1:2, 3]\n", 1, "", true, "multi-dimensional slicing is not supported by the Starlark engine"},
		{"print('\\N{NO SUCH NAME}')\n", 1, "", false, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-15: unknown Unicode character name"},
		{"f = lambda: (yield)\n", 1, "", true, "yield in a lambda is not supported by the Starlark engine"},
		{"from .m import x\n", 1, "", false, "relative imports are not supported"},
		{"x = ().__class__.__mro__\n", 1, "AttributeError", false, "access to attribute '__mro__' is not allowed"},
		{"x = 1\ny = x.__class__.__bases__\n", 2, "AttributeError", false, "access to attribute '__bases__' is not allowed"},
		{"f = __import__('os')\n", 1, "NameError", false, "access to '__import__' is not allowed"},
		{"x = __builtins__\n", 1, "NameError", false, "access to '__builtins__' is not allowed"},
		{"def f(__x): pass\n", 1, "NameError", false, "access to '__x' is not allowed"},
		{"__name__ = 'x'\n", 1, "NameError", false, "access to '__name__' is not allowed"},
		{"from os import __file__\n", 1, "AttributeError", false, "access to attribute '__file__' is not allowed"},
		{"print(f'{x.__dict__}')\n", 1, "AttributeError", false, "access to attribute '__dict__' is not allowed"},
		{"x = getattr(y, 'a').__globals__\n", 1, "AttributeError", false, "access to attribute '__globals__' is not allowed"},
		{"import __main__\n", 1, "NameError", false, "access to '__main__' is not allowed"},
		// CPython's limit on decimal integer literals: reading one is
		// quadratic in its length. Underscores are not digits.
		{"x = 1\ny = " + strings.Repeat("1", 4301) + "\n", 2, "", false, "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; sys.set_int_max_str_digits() is not available here - write huge integer literals in hexadecimal (0x...)"},
		{"y = " + strings.Repeat("1_0", 2200) + "\n", 1, "", false, "Exceeds the limit (4300 digits) for integer string conversion: value has 4400 digits; sys.set_int_max_str_digits() is not available here - write huge integer literals in hexadecimal (0x...)"},
	}
	for _, tt := range tests {
		_, err := Lower("t.py", tt.src)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: got %v, want an *Error", tt.src, err)
			continue
		}
		if e.Line != tt.line || e.Type != tt.typ || e.NeedsPython != tt.needs || e.Msg != tt.msg {
			t.Errorf("%q:\n got line %d type %q needs %v: %s\nwant line %d type %q needs %v: %s", tt.src, e.Line, e.Type, e.NeedsPython, e.Msg, tt.line, tt.typ, tt.needs, tt.msg)
		}
	}
}
