package builtins_test

import (
	"testing"

	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
)

func TestArith(t *testing.T) { builtinstest.RunCases(t, arithCases) }

// arithCases: bool is an int in arithmetic, == is Python's, range attributes, vars, set.pop, and sets of numbers in CPython's order.
var arithCases = []builtinstest.Case{
	{Name: "set_order", Src: `print({3, 1, 2}, set([10, 5, 8, 1]), {100, 3, 64, 7, 8, 9}, {-1, -2, 0, 1}, set(range(20, 0, -1)))
s = set([33, 1, 17, 9])
print(list(s), [x for x in s], sorted(s))
print(s.pop())
print({True, 2, 3.0}, {2.0, 8, 16}, {2**64, 1, 2**61})
for x in {5, 4, 3}:
    print(x, end=" ")
print()
print(",".join(str(x) for x in {30, 20, 10}))
big = set(range(1000, 0, -7))
print(list(big)[:10])
`, Want: "{1, 2, 3} {8, 1, 10, 5} {64, 3, 100, 7, 8, 9} {0, 1, -1, -2} {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}\n[33, 9, 1, 17] [33, 9, 1, 17] [1, 9, 17, 33]\n33\n{True, 2, 3.0} {8, 16, 2.0} {18446744073709551616, 1, 2305843009213693952}\n3 4 5 \n10,20,30\n[517, 6, 524, 13, 531, 20, 538, 27, 545, 34]\n"},
	{Name: "range_attrs_vars_setpop", Src: `r = range(2, 20, 3)
print(r.start, r.stop, r.step, r.index(8), r.count(11), r.count(12), range(5).stop, range(10, 0, -2).index(4), range(3).count(True))
try:
    r.index(3)
except ValueError as e:
    print("ValueError", e)
class Conf:
    def __init__(self):
        self.theme = "dark"
        self.size = 14
c = Conf()
c.extra = [1]
print(vars(c))
s = {5}
print(s.pop(), s)
try:
    s.pop()
except KeyError as e:
    print("KeyError", e)
`, Want: "2 20 3 2 1 0 5 3 1\nValueError 3 is not in range\n{'theme': 'dark', 'size': 14, 'extra': [1]}\n5 set()\nKeyError 'pop from an empty set'\n"},
	{Name: "bool_is_int", Src: `flags = [True, False, True, True]
print(sum(flags), True + 1, True * 3.5, False - True, True / 2, True // 1, 1 + True, -True, +False, ~True)
print(True == 1, False == 0, 1 == 1.0 == True, [1, 2] == [True, 2.0], (1,) == (1.0,), float("nan") == float("nan"), float("nan") != float("nan"))
x = float("nan")
print(x == x, x != 1, 2 != 2.0, "a" == "a", None == 0, [] == [], {1: 2} == {1: 2})
a, b = "kitten", "sitting"
n = 0
n += a[0] != b[0]
n -= (a[1] == b[1])
print(n, 5 - (a < b), 3 & True, True | False, True ^ True, 1 << True)
class P:
    def __init__(self, v): self.v = v
    def __eq__(self, o): return isinstance(o, P) and o.v == self.v
print(P(1) == P(1), P(1) != P(2), P(1) == 1)
`, Want: "3 2 3.5 -1 0.5 1 2 -1 0 -2\nTrue True True True True False True\nFalse True False True False True True\n0 4 1 True False 2\nTrue True False\n"},
	{Name: "bool_aug_assign", Src: `def distance(a, b):
    d = 0
    for x, y in zip(a, b):
        d += x != y
    return d
n = 10
n -= "a" < "b"
n *= True
n //= (1 == 1)
n |= not False
print(distance("kitten", "sittin"), n, sum(c.isupper() for c in "Hello World"), max(True, 0), -(3 > 2))
`, Want: "2 9 2 True -1\n"},
	{Name: "eq", Src: `print(1 == True, 0 == False, 2 == True, 1.0 == True, 0.0 == False, True == 1.0, [True] == [1], (0, False) == (False, 0.0))
print([1, [2, 3]] == [1, [2, 3.0]], [1] == (1,), "1" == 1, None == False, {} == {}, [] != [0])
n = float("inf")
print(n == n, n - n == n - n, 10 ** 20 == 1e20, 10 ** 30 == 1e30, 2 ** 53 + 1 == 2.0 ** 53 + 1)
`, Want: "True True False True True True True True\nTrue False False False True True\nTrue False True False False\n"},
}
