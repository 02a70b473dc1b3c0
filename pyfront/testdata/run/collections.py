a = [1, 2]
b = (3, 4)
print([*a, *b, 5], (*a, 0), {*a}, [*"xy"])
d = {"k": 1}
e = {**d, "j": 2, **{"k": 3}}
print(e)
print({1, 2} == set([2, 1]), {x % 3 for x in range(10)} == {0, 1, 2})
print({k: v * 2 for k, v in d.items()}, [x * x for x in range(5) if x % 2])
print(sum(x for x in range(5)), max(len(w) for w in ["a", "bbb"]))
print([(i, j) for i in range(3) for j in range(i)])
first, *rest = [1, 2, 3, 4]
*init, last = "abc"
p, *mid, q = (1, 2, 3, 4, 5)
print(first, rest, init, last, p, mid, q)
x = y = 0
x += 1
print(x, y)
m = n = []
m.append(1)
print(n)
L = [0, 0, 0]
L[0] = L[1] = 7
print(L)
i, j = 1, 2
i, j = j, i
print(i, j)
(u, v), w = (1, 2), 3
print(u, v, w)
dd = {"a": 1, "b": 2}
del dd["a"]
ll = [1, 2, 3]
del ll[0], ll[-1]
print(dd, ll)
ll = [5, 6]
ll[0] *= 3
ll[1] **= 2
print(ll)
class_ = {"x": [1, 2]}
class_["x"] *= 2
print(class_)
for a2, *b2 in [(1, 2, 3), (4, 5)]:
    print(a2, b2)
print([] == [], () == (), {} == {})
print((1,), (1, 2), ())
nested = [[1, 2], [3]]
print([v for row in nested for v in row])
print(" ".join(str(v) for v in range(3)))
print(",".join(["a", "b"]), "-".join("xyz"))
