package builtins_test

import (
	"testing"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/vm/starlark"
)

// frozenset as CPython 3.11 has it: its own immutable, hashable type, with
// the set's non-mutating methods and operators whose result takes the
// type of the left operand.

func TestFrozenSet(t *testing.T) { builtinstest.RunCases(t, frozensetCases) }

var frozensetCases = []builtinstest.Case{
	{Name: "repr_and_type", Src: `fs = frozenset([3, 1, 2, 3])
print(fs, frozenset(), str(frozenset({5})), repr(fs), f"{fs}", [fs], {"k": fs})
print(frozenset(range(12)), frozenset({10: "x", 3: "y"}), frozenset((x * 7) % 11 for x in range(10)))
print(type(fs), type(fs).__name__, type(fs) is frozenset, type(fs) is set, type(fs) == type(frozenset()))
print(isinstance(fs, frozenset), isinstance(fs, set), isinstance({1}, frozenset), isinstance(fs, (set, frozenset)))
print(frozenset(fs) is fs, bool(fs), bool(frozenset()), frozenset("aaa"))
`, Want: "frozenset({1, 2, 3}) frozenset() frozenset({5}) frozenset({1, 2, 3}) frozenset({1, 2, 3}) [frozenset({1, 2, 3})] {'k': frozenset({1, 2, 3})}\nfrozenset({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) frozenset({10, 3}) frozenset({0, 1, 2, 3, 5, 6, 7, 8, 9, 10})\n<class 'frozenset'> frozenset True False True\nTrue False False True\nTrue True False frozenset({'a'})\n"},
	{Name: "hashable", Src: `a = frozenset({1, 2})
b = frozenset([2, 1])
print(hash(a) == hash(b), hash(frozenset()) == hash(frozenset([])))
d = {a: "pair", frozenset(): "empty", frozenset({(1, 2), "s"}): "mixed"}
print(d[b], d[frozenset()], d[frozenset({"s", (1, 2)})], len(d))
d[b] = "again"
print(len(d), d[a])
s = {a, b, frozenset({3})}
print(len(s), frozenset({3}) in s, frozenset({4}) in s)
nested = frozenset([a, frozenset({3})])
print(len(nested), a in nested, {1, 2} in nested, {9} in nested)
`, Want: "True True\npair empty mixed 3\n3 again\n2 True False\n2 True True False\n"},
	{Name: "container", Src: `fs = frozenset({4, 1, 3})
print(len(fs), 1 in fs, 2 in fs, 2 not in fs, list(fs), sorted(fs), sorted(fs, reverse=True))
print(sum(fs), min(fs), max(fs), set(fs), tuple(fs), [x * 2 for x in fs], {*fs, 0})
for x in fs:
    print(x, end=" ")
print()
it = iter(fs)
print(next(it), next(it), next(it), next(it, "done"))
print(any(fs), all(frozenset({0, 1})), list(enumerate(frozenset({7}))), sorted(frozenset(["b", "a"])))
`, Want: "3 True False True [1, 3, 4] [1, 3, 4] [4, 3, 1]\n8 1 4 {1, 3, 4} (1, 3, 4) [2, 6, 8] {0, 1, 3, 4}\n1 3 4 \n1 3 4 done\nTrue False [(0, 7)] ['a', 'b']\n"},
	{Name: "compare", Src: `a = frozenset({1, 2})
print(a == {1, 2}, {1, 2} == a, a == frozenset([2, 1]), a != {1}, {1} != a, a == [1, 2], a == (1, 2), a == None)
print(frozenset() == set(), [a] == [{1, 2}], (a, 1) == ({1, 2}, 1))
print(frozenset({1}) < a, a < a, a <= a, a > frozenset({1}), a >= frozenset({3}), frozenset() < a)
print(max([frozenset({1}), frozenset({1, 2})], key=len), sorted([a, frozenset({2})], key=sorted))
`, Want: "True True True True True False False False\nTrue True True\nTrue False True True False True\nfrozenset({1, 2}) [frozenset({1, 2}), frozenset({2})]\n"},
	{Name: "operators", Src: `fs = frozenset({1, 2, 3})
s = {3, 4}
for r in [fs | s, s | fs, fs & s, s & fs, fs - s, s - fs, fs ^ s, s ^ fs, fs | frozenset({9}), fs - fs]:
    print(r, type(r).__name__)
g = fs
g |= {5}
h = {0}
h |= fs
print(g, type(g).__name__, fs, h, type(h).__name__)
`, Want: "frozenset({1, 2, 3, 4}) frozenset\n{1, 2, 3, 4} set\nfrozenset({3}) frozenset\n{3} set\nfrozenset({1, 2}) frozenset\n{4} set\nfrozenset({1, 2, 4}) frozenset\n{1, 2, 4} set\nfrozenset({1, 2, 3, 9}) frozenset\nfrozenset() frozenset\nfrozenset({1, 2, 3, 5}) frozenset frozenset({1, 2, 3}) {0, 1, 2, 3} set\n"},
	{Name: "methods", Src: `fs = frozenset({1, 2, 3})
print(fs.union(), fs.union([4], (5,), {6}), fs.union(range(2)), type(fs.union([9])).__name__)
print(fs.intersection([2, 3, 4], {3}), fs.intersection(), fs.difference([1], (2,)), fs.difference())
print(fs.symmetric_difference([3, 4]), fs.symmetric_difference(frozenset({1})), type(fs.symmetric_difference([])).__name__)
print(fs.issubset(range(5)), fs.issubset([1]), fs.issuperset([1, 2]), fs.issuperset({9}), fs.isdisjoint("ab"), fs.isdisjoint([3]))
print(fs.copy() is fs, frozenset.union(fs, [7]), frozenset.issubset(fs, {1, 2, 3}))
s = {0}
s.update(fs)
print(s, {1, 2}.issubset(fs), {1, 9}.union(fs), {1, 2, 3}.symmetric_difference(fs))
`, Want: "frozenset({1, 2, 3}) frozenset({1, 2, 3, 4, 5, 6}) frozenset({0, 1, 2, 3}) frozenset\nfrozenset({3}) frozenset({1, 2, 3}) frozenset({3}) frozenset({1, 2, 3})\nfrozenset({1, 2, 4}) frozenset({2, 3}) frozenset\nTrue False True False True False\nTrue frozenset({1, 2, 3, 7}) True\n{0, 1, 2, 3} True {1, 2, 3, 9} set()\n"},
	{Name: "errors", Src: `fs = frozenset({1, 2})
def attempt(f):
    try:
        print(f())
    except (TypeError, AttributeError, KeyError) as e:
        print(type(e).__name__ + ":", e)
attempt(lambda: fs.add(3))
attempt(lambda: fs.remove(1))
attempt(lambda: fs.discard(1))
attempt(lambda: fs.update([3]))
attempt(lambda: fs.clear())
attempt(lambda: fs.pop())
attempt(lambda: fs.intersection_update([1]))
attempt(lambda: frozenset([[1], 2]))
attempt(lambda: frozenset([{1}]))
attempt(lambda: frozenset(5))
attempt(lambda: frozenset([1], [2]))
attempt(lambda: [1] in fs)
attempt(lambda: {fs: 1, {1}: 2})
attempt(lambda: fs[0])
attempt(lambda: fs | [1])
attempt(lambda: [1] - fs)
attempt(lambda: fs < [1])
attempt(lambda: fs.union(5))
attempt(lambda: fs.union([1], x=2))
attempt(lambda: fs.symmetric_difference([1], [2]))
attempt(lambda: fs.issubset())
attempt(lambda: fs.isdisjoint([1], [2]))
attempt(lambda: hash(frozenset({1})) == hash(frozenset({1})))
`, Want: "AttributeError: 'frozenset' object has no attribute 'add'\nAttributeError: 'frozenset' object has no attribute 'remove'\nAttributeError: 'frozenset' object has no attribute 'discard'\nAttributeError: 'frozenset' object has no attribute 'update'\nAttributeError: 'frozenset' object has no attribute 'clear'\nAttributeError: 'frozenset' object has no attribute 'pop'\nAttributeError: 'frozenset' object has no attribute 'intersection_update'\nTypeError: unhashable type: 'list'\nTypeError: unhashable type: 'set'\nTypeError: 'int' object is not iterable\nTypeError: frozenset expected at most 1 argument, got 2\nTypeError: unhashable type: 'list'\nTypeError: unhashable type: 'set'\nTypeError: 'frozenset' object is not subscriptable\nTypeError: unsupported operand type(s) for |: 'frozenset' and 'list'\nTypeError: unsupported operand type(s) for -: 'list' and 'frozenset'\nTypeError: '<' not supported between instances of 'frozenset' and 'list'\nTypeError: 'int' object is not iterable\nTypeError: frozenset.union() takes no keyword arguments\nTypeError: frozenset.symmetric_difference() takes exactly one argument (2 given)\nTypeError: frozenset.issubset() takes exactly one argument (0 given)\nTypeError: frozenset.isdisjoint() takes exactly one argument (2 given)\nTrue\n"},
	{Name: "copy_json", Src: `import copy, json
fs = frozenset({(1, 2), 3})
c = copy.copy(fs)
d = copy.deepcopy(fs)
print(c is fs, d == fs, type(d).__name__, copy.deepcopy([fs, {"k": fs}]))
try:
    json.dumps(fs)
except TypeError as e:
    print("TypeError:", e)
try:
    json.dumps({"a": [frozenset()]})
except TypeError as e:
    print("TypeError:", e)
print(json.dumps(sorted(frozenset({3, 1}))), json.dumps(frozenset({2}), default=sorted))
`, Want: "True True frozenset [frozenset({(1, 2), 3}), {'k': frozenset({(1, 2), 3})}]\nTypeError: Object of type frozenset is not JSON serializable\nTypeError: Object of type frozenset is not JSON serializable\n[1, 3] [2]\n"},
	{Name: "stdlib", Src: `import random, itertools, functools, collections, statistics
fs = frozenset({3, 1, 2})
try:
    random.sample(fs, 1)
except TypeError as e:
    print("TypeError:", e)
print(random.choice(sorted(frozenset({5}))), list(itertools.combinations(fs, 2)), functools.reduce(lambda a, b: a * 10 + b, fs))
print(collections.Counter(fs), statistics.mean(fs), list(zip(fs, "abc")), list(map(str, fs)), ", ".join(str(x) for x in fs))
print(dict.fromkeys(fs), frozenset(dict.fromkeys(fs).keys()), frozenset({2: "b"}.items()))
`, Want: "TypeError: Population must be a sequence.  For dicts or sets, use sorted(d).\n5 [(1, 2), (1, 3), (2, 3)] 123\nCounter({1: 1, 2: 1, 3: 1}) 2 [(1, 'a'), (2, 'b'), (3, 'c')] ['1', '2', '3'] 1, 2, 3\n{1: None, 2: None, 3: None} frozenset({1, 2, 3}) frozenset({(2, 'b')})\n"},
}

// The engine's memory walk (executors/starlarkexec's liveSize) counts what a
// Sizer reports: a frozenset must pass it every element.
var _ starlarkexec.Sizer = (*core.FrozenSet)(nil)

func TestFrozenSetSizeOfVisitsElements(t *testing.T) {
	s := starlark.NewSet(3)
	big := starlark.String(make([]byte, 1000))
	for _, v := range []starlark.Value{starlark.MakeInt(1), big, starlark.Tuple{big}} {
		if err := s.Insert(v); err != nil {
			t.Fatal(err)
		}
	}
	fs := core.NewFrozenSet(s)
	var seen []starlark.Value
	if n := fs.SizeOf(func(v starlark.Value) { seen = append(seen, v) }); n <= 0 {
		t.Errorf("SizeOf = %d, want a positive size", n)
	}
	if len(seen) != 3 {
		t.Errorf("SizeOf visited %d values, want the 3 elements", len(seen))
	}
}
