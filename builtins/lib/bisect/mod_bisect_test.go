package bisect_test

import (
	"testing"

	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
)

func TestBisect(t *testing.T) { builtinstest.RunCases(t, bisectCases) }

var bisectCases = []builtinstest.Case{
	{Name: "basic", Src: `import bisect
a = [1, 2, 2, 2, 3, 5, 8]
for x in [0, 1, 2, 2.5, 3, 8, 9]:
    print(x, bisect.bisect_left(a, x), bisect.bisect_right(a, x), bisect.bisect(a, x))
print(bisect.bisect_left(a, 2, 2), bisect.bisect_right(a, 2, 0, 3), bisect.bisect_left(a, 2, lo=4, hi=6))
print(bisect.bisect(a, 2, hi=-1), bisect.bisect(a, 2, 0, -5), bisect.bisect(a, 2, 0, None), bisect.bisect(a, 2, True))
grades = [60, 70, 80, 90]
print([("FDCBA")[bisect.bisect(grades, s)] for s in [55, 70, 85, 99]])
print(bisect.bisect("acegi", "f"), bisect.bisect_left((1.5, 2.5, 3.5), 2.5), bisect.bisect(range(0, 100, 5), 42))
`, Want: "0 0 0 0\n1 0 1 1\n2 1 4 4\n2.5 4 4 4\n3 4 5 5\n8 6 7 7\n9 7 7 7\n2 3 4\n4 0 4 4\n['F', 'C', 'B', 'A']\n3 1 9\n"},
	{Name: "insort", Src: `import bisect
a = []
for x in [5, 1, 4, 1, 5, 9, 2, 6]:
    bisect.insort(a, x)
print(a)
b = [(1, "a"), (2, "b")]
bisect.insort_left(b, (2, "a"))
bisect.insort_right(b, (1, "z"))
print(b)
c = [1, 3, 5]
bisect.insort(c, 4)
print(c, bisect.bisect_left(c, 3), bisect.bisect_right(c, 3))
`, Want: "[1, 1, 2, 4, 5, 5, 6, 9]\n[(1, 'a'), (1, 'z'), (2, 'a'), (2, 'b')]\n[1, 3, 4, 5] 1 2\n"},
	{Name: "key", Src: `import bisect
rows = [("ann", 20), ("bob", 25), ("cy", 25), ("di", 31)]
print(bisect.bisect_left(rows, 25, key=lambda r: r[1]), bisect.bisect_right(rows, 25, key=lambda r: r[1]))
bisect.insort(rows, ("ed", 25), key=lambda r: r[1])
bisect.insort_left(rows, ("fay", 25), key=lambda r: r[1])
print(rows)
words = ["a", "bb", "dddd"]
bisect.insort(words, "ccc", key=len)
print(words, bisect.bisect(words, 2, key=len), bisect.bisect(words, 2, 0, 2, key=len))
`, Want: "1 3\n[('ann', 20), ('fay', 25), ('bob', 25), ('cy', 25), ('ed', 25), ('di', 31)]\n['a', 'bb', 'ccc', 'dddd'] 2 2\n"},
	{Name: "user_lt", Src: `import bisect
class V:
    def __init__(self, v):
        self.v = v
    def __lt__(self, other):
        print("lt", self.v, other.v)
        return self.v < other.v
    def __repr__(self):
        return "V(%d)" % self.v
a = [V(i) for i in range(0, 10, 2)]
print(bisect.bisect_left(a, V(5)))
bisect.insort(a, V(4))
print(a)
`, Want: "lt 4 5\nlt 8 5\nlt 6 5\n3\nlt 4 4\nlt 4 8\nlt 4 6\n[V(0), V(2), V(4), V(4), V(6), V(8)]\n"},
	{Name: "errors", Src: `import bisect
tests = [
    lambda: bisect.bisect_right(5, 1),
    lambda: bisect.bisect_right(5, 1, 0, 3),
    lambda: bisect.bisect([1, 2], 1, -1),
    lambda: bisect.bisect([1, 2], 1, "a"),
    lambda: bisect.bisect([1, 2]),
    lambda: bisect.bisect([1, 2], 1, 0, 2, None),
    lambda: bisect.bisect([1, 2], 1, foo=2),
    lambda: bisect.insort((1, 2), 1),
    lambda: bisect.bisect([1, 2], 1, hi=10),
    lambda: bisect.bisect((1, 2), 1, hi=10),
    lambda: bisect.bisect([1, "a"], 2),
    lambda: bisect.bisect([1, 2], 1, None),
    lambda: bisect.bisect_left([1, 2], 1, a=[1]),
    lambda: bisect.bisect_left([(1, None), (1, 2)], (1, 1)),
]
for f in tests:
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__, e)
`, Want: "TypeError object of type 'int' has no len()\nTypeError 'int' object does not support indexing\nValueError lo must be non-negative\nTypeError 'str' object cannot be interpreted as an integer\nTypeError bisect_right() missing required argument 'x' (pos 2)\nTypeError bisect_right() takes at most 4 positional arguments (5 given)\nTypeError 'foo' is an invalid keyword argument for bisect_right()\nAttributeError 'tuple' object has no attribute 'insert'\nIndexError list index out of range\nIndexError tuple index out of range\nTypeError '<' not supported between instances of 'int' and 'str'\nTypeError 'NoneType' object cannot be interpreted as an integer\nTypeError argument for bisect_left() given by name ('a') and position (1)\nTypeError '<' not supported between instances of 'NoneType' and 'int'\n"},
}
