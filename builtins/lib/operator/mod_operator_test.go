package operator_test

import (
	"strings"
	"testing"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
)

func TestOperator(t *testing.T) { builtinstest.RunCases(t, operatorCases) }

var operatorCases = []builtinstest.Case{
	{Name: "arith", Src: `import operator as o
print(o.add(2, 3), o.add("a", "b"), o.add([1], [2]), o.add(True, True), o.add(1.5, 2))
print(o.sub(5, 7), o.sub({1, 2}, {2}), o.mul(4, 5), o.mul("ab", 3), o.mul(3, [0]), o.mul(True, 2.5))
print(o.truediv(7, 2), o.floordiv(7, 2), o.floordiv(-7, 2), o.mod(7, 3), o.mod(-7, 3), o.mod("%s!", "x"))
print(o.pow(2, 10), o.pow(2, -1), o.pow(2.0, 0.5), o.neg(3), o.neg(True), o.pos(-2), o.abs(-2.5), o.invert(5), o.inv(0))
print(o.and_(6, 3), o.or_(6, 3), o.xor(6, 3), o.and_(True, False), o.xor(True, True), o.or_(True, 2))
print(o.lshift(1, 70), o.rshift(16, 2), o.index(10 ** 30), o.index(True), o.iadd([1], [2]), o.iadd(1, 2))
print(o.concat("a", "b"), o.concat([1], [2]), o.concat((1,), (2,)))
`, Want: "5 ab [1, 2] 2 3.5\n-2 {1} 20 ababab [0, 0, 0] 2.5\n3.5 3 -4 1 2 x!\n1024 0.5 1.4142135623730951 -3 -1 -2 2.5 -6 -1\n2 7 5 False False 3\n1180591620717411303424 4 1000000000000000000000000000000 1 [1, 2] 3\nab [1, 2] (1, 2)\n"},
	{Name: "compare_logic", Src: `import operator as o
print(o.eq(1, True), o.eq(1, 1.0), o.ne([1], [1]), o.lt(1, 2), o.le("a", "b"), o.gt(2, 1.5), o.ge((1, 2), (1,)))
print(o.lt((1, True), (1, 2)), o.gt([1, 2], [1, 2, 0]), o.le(2, 2), o.ge(False, True))
print(o.not_(0), o.not_([1]), o.truth(""), o.truth(3), o.is_(None, None), o.is_not(1, None))
print(o.contains([1, 2], 2), o.contains("abc", "b"), o.contains({"a": 1}, "a"), o.contains([1], True), o.contains((1, 2), 3))
print(o.countOf([1, True, 1.0, 2], 1), o.countOf("banana", "a"), o.indexOf([0, 1], True), o.indexOf("abc", "c"))
print(o.getitem({"a": 1}, "a"), o.getitem([1, 2, 3], -1), o.getitem("héllo", 1), o.getitem((4, 5), True))
`, Want: "True True False True True True True\nTrue False True False\nTrue False False True True True\nTrue True True True False\n3 3 1 2\n1 3 \u00e9 5\n"},
	{Name: "getters", Src: `import operator
from functools import reduce
rows = [{"name": "b", "age": 30}, {"name": "a", "age": 25}, {"name": "c", "age": 30}]
print(sorted(rows, key=operator.itemgetter("age", "name")))
pairs = [(1, "x"), (0, "y")]
print(sorted(pairs, key=operator.itemgetter(0)), list(map(operator.itemgetter(1), pairs)))
print(operator.itemgetter(0, -1)("hello"), operator.itemgetter(1)([7, 8]))
print(reduce(operator.or_, [{1}, {2}, {3}]), reduce(operator.mul, range(1, 6)))
upper = operator.methodcaller("upper")
print(upper("abc"), operator.attrgetter("real")(3), operator.attrgetter("real", "imag")(5))
print(operator.methodcaller("split", ",", maxsplit=1)("a,b,c"), operator.methodcaller("count", "a")("banana"))
class P:
    def __init__(self, name, child=None):
        self.name, self.child = name, child
print(operator.attrgetter("child.name", "name")(P("x", P("y"))))
print(sorted([P("b"), P("a"), P("c")], key=operator.attrgetter("name"))[0].name)
print(repr(operator.itemgetter(1)), repr(operator.itemgetter("a", "b")), repr(operator.attrgetter("a.b", "c")))
print(repr(operator.methodcaller("split", ",", maxsplit=1)), operator.methodcaller("upper"))
print(type(operator.itemgetter(1)), operator.itemgetter, isinstance(operator.itemgetter(1), operator.itemgetter))
`, Want: "[{'name': 'a', 'age': 25}, {'name': 'b', 'age': 30}, {'name': 'c', 'age': 30}]\n[(0, 'y'), (1, 'x')] ['x', 'y']\n('h', 'o') 8\n{1, 2, 3} 120\nABC 3 (5, 0)\n['a', 'b,c'] 3\n('y', 'x')\na\noperator.itemgetter(1) operator.itemgetter('a', 'b') operator.attrgetter('a.b', 'c')\noperator.methodcaller('split', ',', maxsplit=1) operator.methodcaller('upper')\n<class 'operator.itemgetter'> <class 'operator.itemgetter'> True\n"},
	{Name: "errors", Src: `import operator as o
class P:
    pass
tests = [
    lambda: o.itemgetter(),
    lambda: o.attrgetter(1),
    lambda: o.methodcaller(1),
    lambda: o.methodcaller(),
    lambda: o.itemgetter(5)([1]),
    lambda: o.itemgetter("x")({}),
    lambda: o.attrgetter("zz")(1),
    lambda: o.attrgetter("a.b")(P()),
    lambda: o.concat(1, 2),
    lambda: o.concat([1], (2,)),
    lambda: o.index(1.5),
    lambda: o.indexOf([1, 2], 3),
    lambda: o.add(1),
    lambda: o.add(1, "a"),
    lambda: o.sub("a", 1),
    lambda: o.neg("a"),
    lambda: o.neg(),
    lambda: o.neg(a=1),
    lambda: o.contains(1, 2),
    lambda: o.getitem(1, 2),
    lambda: o.getitem((1, 2), 5),
    lambda: o.getitem("abc", 1.0),
    lambda: o.getitem([1], "a"),
    lambda: o.getitem({}, [1]),
    lambda: o.lt(1, "a"),
    lambda: o.gt((1, None), (1, 2)),
    lambda: o.truediv(1, 0),
    lambda: o.floordiv(1, 0),
    lambda: o.mod(1, 0),
    lambda: o.itemgetter(1)(x=1),
    lambda: o.itemgetter(1)(1, 2),
    lambda: o.attrgetter("a", b=1),
    lambda: o.countOf(1, 1),
    lambda: o.methodcaller("nope")("x"),
]
for f in tests:
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__, e)
`, Want: "TypeError itemgetter expected 1 argument, got 0\nTypeError attribute name must be a string\nTypeError method name must be a string\nTypeError methodcaller needs at least one argument, the method name\nIndexError list index out of range\nKeyError 'x'\nAttributeError 'int' object has no attribute 'zz'\nAttributeError 'P' object has no attribute 'a'\nTypeError 'int' object can't be concatenated\nTypeError can only concatenate list (not \"tuple\") to list\nTypeError 'float' object cannot be interpreted as an integer\nValueError sequence.index(x): x not in sequence\nTypeError add expected 2 arguments, got 1\nTypeError unsupported operand type(s) for +: 'int' and 'str'\nTypeError unsupported operand type(s) for -: 'str' and 'int'\nTypeError bad operand type for unary -: 'str'\nTypeError _operator.neg() takes exactly one argument (0 given)\nTypeError _operator.neg() takes no keyword arguments\nTypeError argument of type 'int' is not iterable\nTypeError 'int' object is not subscriptable\nIndexError tuple index out of range\nTypeError string indices must be integers, not 'float'\nTypeError list indices must be integers or slices, not str\nTypeError unhashable type: 'list'\nTypeError '<' not supported between instances of 'int' and 'str'\nTypeError '>' not supported between instances of 'NoneType' and 'int'\nZeroDivisionError division by zero\nZeroDivisionError integer division or modulo by zero\nZeroDivisionError integer modulo by zero\nTypeError itemgetter() takes no keyword arguments\nTypeError itemgetter expected 1 argument, got 2\nTypeError attrgetter() takes no keyword arguments\nTypeError argument of type 'int' is not iterable\nAttributeError 'str' object has no attribute 'nope'\n"},
}

// TestOperatorRefusesDunders checks that attrgetter and methodcaller are
// no way around getattr's refusal of dunder names (no reflection).
func TestOperatorRefusesDunders(t *testing.T) {
	for _, src := range []string{
		"import operator\noperator.attrgetter('__class__.__bases__')(1)",
		"import operator\noperator.attrgetter('real.__mro__')(1)",
		"import operator\noperator.attrgetter('real', '__dict__')(1)",
		"import operator\noperator.methodcaller('__init_subclass__')(1)",
		"import operator\noperator.methodcaller('__reduce_ex__', 2)([])",
	} {
		_, err := builtinstest.Run(t, src)
		if err == nil {
			t.Errorf("%s: no error", src)
			continue
		}
		if typ, msg := core.Classify(err); typ != "AttributeError" || !strings.Contains(msg, "is not allowed") {
			t.Errorf("%s: %s: %s, want AttributeError (access not allowed)", src, typ, msg)
		}
	}
}
