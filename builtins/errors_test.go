package builtins_test

import (
	"testing"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
	"github.com/star-agent/star-agent/vm/starlark"
)

func TestClassifyInterpreterErrors(t *testing.T) {
	env := builtinstest.Env()
	for _, c := range []struct{ src, typ, msg string }{
		{`{"a": 1}["x"]`, "KeyError", "'x'"},
		{`{"a": 1}[1]`, "KeyError", "1"},
		{`[1][5]`, "IndexError", "list index out of range"},
		{`"ab"[5]`, "IndexError", "str index out of range"},
		{`"a" + 1`, "TypeError", `can only concatenate str (not "int") to str`},
		{`1 + "a"`, "TypeError", "unsupported operand type(s) for +: 'int' and 'str'"},
		{`[1] + (1,)`, "TypeError", `can only concatenate list (not "tuple") to list`},
		{`"a" * "b"`, "TypeError", "can't multiply sequence by non-int of type 'str'"},
		{`1 / 0`, "ZeroDivisionError", "division by zero"},
		{`1 // 0`, "ZeroDivisionError", "integer division or modulo by zero"},
		{`None.x`, "AttributeError", "'NoneType' object has no attribute 'x'"},
		{`totl`, "NameError", "name 'totl' is not defined"},
		{`{[1]: 2}`, "TypeError", "unhashable type: 'list'"},
		{`-"a"`, "TypeError", "bad operand type for unary -: 'str'"},
		{`1 < "a"`, "TypeError", "'<' not supported between instances of 'int' and 'str'"},
		{`None()`, "TypeError", "'NoneType' object is not callable"},
		{`[].pop()`, "IndexError", "pop from empty list"},
		{`A([], "pop")()`, "IndexError", "pop from empty list"},
		{`int("x")`, "ValueError", "invalid literal for int() with base 10: 'x'"},
		{`json.loads("{")`, "JSONDecodeError", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
		{`math.nope`, "AttributeError", "module 'math' has no attribute 'nope'"},
		{`A(1, "nope")`, "AttributeError", "'int' object has no attribute 'nope'"},
		{`statistics.mean([])`, "StatisticsError", "mean requires at least one data point"},
	} {
		_, err := starlark.EvalOptions(builtinstest.FileOptions, &starlark.Thread{}, "e.py", c.src, env)
		typ, msg := core.Classify(errOrNil(err))
		if typ != c.typ || msg != c.msg {
			t.Errorf("%s: got %s: %s, want %s: %s", c.src, typ, msg, c.typ, c.msg)
		}
	}
}
