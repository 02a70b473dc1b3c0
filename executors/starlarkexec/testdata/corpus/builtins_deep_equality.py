# Equality and ordering of nested and self-sharing containers, and the
# identity shortcut of Python's containers (an item that is the same
# object on both sides is equal without being compared).

# Nesting deeper than ten levels.
a, b = (), ()
for _ in range(50):
    a, b = (a,), (b,)
print(a == b, a != b, a < b, a <= b, [a].index(b), a in [b], a in {b: 1}, {a: 1}[b])
la, lb = [], []
for _ in range(50):
    la, lb = [la], [lb]
print(la == lb, la < lb, la >= lb, [la].count(lb), la in (lb,), max(la, lb) is la)
da, db = {}, {}
for _ in range(50):
    da, db = {"k": da}, {"k": db}
print(da == db, {1: da} == {1: db}, [da] == [db], da in [db])

# Sharing their parts: 2**18 leaves, 19 distinct values.
s, t = (), ()
for _ in range(18):
    s, t = (s, s), (t, t)
print(s == t, s != t, s < t, s >= t, sorted([t, s])[0] is t, max(s, t) is s)
print(len({s, t}), len(set([s, t])), hash(s) == hash(t), s in {t: 0}, [s, t].count(t))
ls, lt = [], []
for _ in range(18):
    ls, lt = [ls, ls], [lt, lt]
print(ls == lt, ls != lt, ls <= lt, [ls].index(lt), lt in [0, ls])
x = lt
while x:
    x = x[0]
x.append(1)  # every level of lt holds it
print(ls == lt, ls < lt, lt > ls, ls in [lt], {0: ls} == {0: lt})


# Identity before equality.
class Never:
    def __eq__(self, other):
        return False

    def __hash__(self):
        return 7


n = Never()
print(n == n, [n] == [n], n in [n], [n].count(n), [n].index(n), (n,) == (n,), {1: n} == {1: n})
print((n,) < (n,), (n,) <= (n,), n in {n: 1}, n in {n}, [[n]] == [[n]])
m = [1, 2]
print([m] == [m], [m, m] == [m, [1, 2]], (m,) == ([1, 2],))
print([float("nan")] == [float("nan")], (float("nan"),) == (float("nan"),))

# Cycles: a list holding itself equals itself; two such lists recurse.
c = [1]
c.append(c)
print(c == c, c in [c], [c] == [c], c <= c, c < c)
d = [1]
d.append(d)
for f in (lambda: c == d, lambda: c < d, lambda: c in [d], lambda: [c].index(d)):
    try:
        print(f())
    except RecursionError:
        print("RecursionError")
final_answer(s == t)
