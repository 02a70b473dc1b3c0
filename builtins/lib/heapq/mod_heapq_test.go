package heapq_test

import (
	"testing"

	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
)

func TestHeapq(t *testing.T) { builtinstest.RunCases(t, heapqCases) }

// heapqCases print heaps after each operation: the sifts must leave the
// items where CPython's do, and make the same comparisons.
var heapqCases = []builtinstest.Case{
	{Name: "push_pop_order", Src: `import heapq
h = []
for x in [5, 3, 8, 1, 9, 2, 7, 1, 6]:
    heapq.heappush(h, x)
    print(h)
while h:
    print(heapq.heappop(h), h)
`, Want: "[5]\n[3, 5]\n[3, 5, 8]\n[1, 3, 8, 5]\n[1, 3, 8, 5, 9]\n[1, 3, 2, 5, 9, 8]\n[1, 3, 2, 5, 9, 8, 7]\n[1, 1, 2, 3, 9, 8, 7, 5]\n[1, 1, 2, 3, 9, 8, 7, 5, 6]\n1 [1, 3, 2, 5, 9, 8, 7, 6]\n1 [2, 3, 6, 5, 9, 8, 7]\n2 [3, 5, 6, 7, 9, 8]\n3 [5, 7, 6, 8, 9]\n5 [6, 7, 9, 8]\n6 [7, 8, 9]\n7 [8, 9]\n8 [9]\n9 []\n"},
	{Name: "heapify_sizes", Src: `import heapq
seed = 12345
def rnd():
    global seed
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % 1000
for n in [0, 1, 2, 3, 10, 31, 100, 2501, 3000, 5000]:
    h = [rnd() for _ in range(n)]
    heapq.heapify(h)
    print(n, h[:12], sum([i * v for i, v in enumerate(h)]))
`, Want: "0 [] 0\n1 [606] 0\n2 [775, 924] 924\n3 [178, 573, 459] 1491\n10 [82, 167, 192, 571, 244, 197, 310, 793, 928, 585] 24325\n31 [0, 107, 2, 710, 314, 75, 19, 734, 756, 527, 456, 422] 293634\n100 [4, 4, 12, 16, 40, 28, 110, 32, 79, 57, 124, 41] 2881847\n2501 [0, 2, 0, 3, 4, 1, 1, 8, 6, 5, 5, 1] 1950191780\n3000 [1, 1, 1, 3, 1, 1, 2, 5, 6, 1, 2, 3] 2841230842\n5000 [0, 0, 0, 0, 0, 0, 2, 2, 0, 8, 6, 0] 7896363235\n"},
	{Name: "replace_pushpop", Src: `import heapq
h = [1, 3, 5, 7, 9, 11]
print(heapq.heapreplace(h, 6), h)
print(heapq.heappushpop(h, 0), h)
print(heapq.heappushpop(h, 10), h)
print(heapq.heappushpop([], 4))
`, Want: "1 [3, 6, 5, 7, 9, 11]\n0 [3, 6, 5, 7, 9, 11]\n3 [5, 6, 10, 7, 9, 11]\n4\n"},
	{Name: "tuples_strs_floats", Src: `import heapq
h = []
for item in [(3, "c"), (1, "z"), (1, "a"), (2.5, "x"), (0, "q")]:
    heapq.heappush(h, item)
print(h, [heapq.heappop(h) for _ in range(len(h))])
w = ["pear", "apple", "fig", "kiwi", "banana"]
heapq.heapify(w)
print(w)
f = [2.5, -1.0, 3.25, 0.0, float("inf"), -7.5]
heapq.heapify(f)
print(f, heapq.heappop(f))
`, Want: "[] [(0, 'q'), (1, 'a'), (1, 'z'), (2.5, 'x'), (3, 'c')]\n['apple', 'banana', 'fig', 'kiwi', 'pear']\n[-1.0, 0.0, 2.5, 3.25, inf] -7.5\n"},
	{Name: "user_lt", Src: `import heapq
class Task:
    def __init__(self, p, name):
        self.p, self.name = p, name
    def __lt__(self, other):
        print("cmp", self.name, other.name)
        return self.p < other.p
    def __repr__(self):
        return "Task(%d, %s)" % (self.p, self.name)
h = []
for p, n in [(3, "a"), (1, "b"), (2, "c"), (0, "d")]:
    heapq.heappush(h, Task(p, n))
print(h)
print(heapq.heappop(h))
print(h)
`, Want: "cmp b a\ncmp c b\ncmp d a\ncmp d b\n[Task(0, d), Task(1, b), Task(2, c), Task(3, a)]\ncmp b c\ncmp a b\nTask(0, d)\n[Task(1, b), Task(3, a), Task(2, c)]\n"},
	{Name: "errors", Src: `import heapq
tests = [
    lambda: heapq.heappush((1,), 2),
    lambda: heapq.heappop([]),
    lambda: heapq.heapify((1,)),
    lambda: heapq.heapreplace([], 1),
    lambda: heapq.heappush([1]),
    lambda: heapq.heappop((1,)),
    lambda: heapq.heappush([1, "a"], 2),
    lambda: heapq.heappush([1, 2], "a"),
    lambda: heapq.heapify([3, "a", 1]),
    lambda: heapq.nsmallest(2, 5),
    lambda: heapq.nsmallest(2.0, iter([1, 2, 3])),
    lambda: heapq.nlargest(3, [1, None, 2, 0]),
    lambda: heapq.merge([1], [2], foo=1),
    lambda: list(heapq.merge([1, 3], ["a"])),
]
for f in tests:
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__, e)
`, Want: "TypeError heappush() argument 1 must be list, not tuple\nIndexError index out of range\nTypeError heapify() argument must be list, not tuple\nIndexError index out of range\nTypeError heappush expected 2 arguments, got 1\nTypeError heappop() argument must be list, not tuple\nNone\nTypeError '<' not supported between instances of 'str' and 'int'\nTypeError '<' not supported between instances of 'str' and 'int'\nTypeError 'int' object is not iterable\nTypeError 'float' object cannot be interpreted as an integer\nTypeError '<' not supported between instances of 'NoneType' and 'int'\nTypeError merge() got an unexpected keyword argument 'foo'\nTypeError '<' not supported between instances of 'int' and 'str'\n"},
	{Name: "list_changed_size", Src: `import heapq
h = []
class Bad:
    def __init__(self, v):
        self.v = v
    def __lt__(self, other):
        h.append(Bad(0))
        return self.v < other.v
h.extend([Bad(1), Bad(2)])
try:
    heapq.heappush(h, Bad(0))
except RuntimeError as e:
    print("RuntimeError", e)
`, Want: "RuntimeError list changed size during iteration\n"},
	{Name: "nsmallest_nlargest", Src: `import heapq
data = [7, 3, 9, 3, 1, 8, 2, 9, 5, 0, 4]
for n in [-1, 0, 1, 2, 3, 5, 11, 20]:
    print(n, heapq.nsmallest(n, data), heapq.nlargest(n, data))
    print(n, heapq.nsmallest(n, iter(data)), heapq.nlargest(n, iter(data)))
scores = {"ana": 88, "ben": 92, "cid": 75, "dot": 92, "eli": 67, "fin": 99, "gil": 81}
print(heapq.nlargest(3, scores.items(), key=lambda kv: kv[1]))
print(heapq.nsmallest(3, scores, key=scores.get))
print(heapq.nlargest(2, iter(scores.items()), key=lambda kv: kv[1]))
print(heapq.nsmallest(4, iter(["bb", "a", "ccc", "dd", "e", "fff"]), key=len))
print(heapq.nlargest(4, iter(["bb", "a", "ccc", "dd", "e", "fff"]), key=len))
print(heapq.nsmallest(1, []), heapq.nlargest(1, [], key=len), heapq.nsmallest(1, [None]))
print(heapq.nlargest(2, "hello"), heapq.nsmallest(2, (3.5, 1, 2.25)))
`, Want: "-1 [] []\n-1 [] []\n0 [] []\n0 [] []\n1 [0] [9]\n1 [0] [9]\n2 [0, 1] [9, 9]\n2 [0, 1] [9, 9]\n3 [0, 1, 2] [9, 9, 8]\n3 [0, 1, 2] [9, 9, 8]\n5 [0, 1, 2, 3, 3] [9, 9, 8, 7, 5]\n5 [0, 1, 2, 3, 3] [9, 9, 8, 7, 5]\n11 [0, 1, 2, 3, 3, 4, 5, 7, 8, 9, 9] [9, 9, 8, 7, 5, 4, 3, 3, 2, 1, 0]\n11 [0, 1, 2, 3, 3, 4, 5, 7, 8, 9, 9] [9, 9, 8, 7, 5, 4, 3, 3, 2, 1, 0]\n20 [0, 1, 2, 3, 3, 4, 5, 7, 8, 9, 9] [9, 9, 8, 7, 5, 4, 3, 3, 2, 1, 0]\n20 [0, 1, 2, 3, 3, 4, 5, 7, 8, 9, 9] [9, 9, 8, 7, 5, 4, 3, 3, 2, 1, 0]\n[('fin', 99), ('ben', 92), ('dot', 92)]\n['eli', 'cid', 'gil']\n[('fin', 99), ('ben', 92)]\n['a', 'e', 'bb', 'dd']\n['ccc', 'fff', 'bb', 'dd']\n[] [] [None]\n['o', 'l'] [1, 2.25]\n"},
	{Name: "merge", Src: `import heapq
print(list(heapq.merge([1, 4, 7], [2, 5, 8], [0, 3, 6, 9])))
print(list(heapq.merge()), list(heapq.merge([], [1]), ))
print(list(heapq.merge([1, 1, 2], [1, 2, 2])))
print(list(heapq.merge(["a", "ccc"], ["bb", "dddd"], key=len)))
print(list(heapq.merge([9, 5, 1], [8, 2], reverse=True)))
print(list(heapq.merge([(1, "b"), (3, "a")], [(1, "a"), (2, "z")], key=lambda t: t[0])))
print(list(heapq.merge(iter([3, 4]), (1, 2), "")))
m = heapq.merge([1, 3], [2])
print(next(m), next(m), list(m))
`, Want: "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n[] [1]\n[1, 1, 1, 2, 2, 2]\n['a', 'bb', 'ccc', 'dddd']\n[9, 8, 5, 2, 1]\n[(1, 'b'), (1, 'a'), (2, 'z'), (3, 'a')]\n[1, 2, 3, 4]\n1 2 [3]\n"},
}
