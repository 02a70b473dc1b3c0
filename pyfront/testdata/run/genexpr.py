# Generator expressions are lazy; assignment expressions in
# comprehensions bind outside them; keywords after ** keep their order.
calls = []
def check(x):
    calls.append(x)
    return x > 2

nums = [1, 2, 3, 4, 5]
print(any(check(n) for n in nums), calls)
calls.clear()
print(all(not check(n) for n in nums), calls)
g = (n * n for n in nums if n % 2)
print(type(g).__name__, next(g), next(g), list(g), list(g))
print(next((n for n in nums if n > 10), "none"), next(n for n in nums if n > 3))
print(sum(x * y for x in range(3) for y in range(x) if x != y), max(len(w) for w in "a bb ccc".split()))
print(sorted((k, v) for k, v in {"b": 2, "a": 1}.items()), dict((s, len(s)) for s in ["ab", "c"]))
print(list((a, b) for (a, b), c in [((1, 2), 3), ((4, 5), 6)]), list(x for x in "héllo" if x != "l"))
print(tuple(x for x in range(4) for x in [x, -x] if x), ",".join(w.upper() for w in ["x", "y"]))
print(min((n for n in []), default="empty"), sorted((n % 3 for n in nums), reverse=True))

# The first iterable is evaluated at once, the rest when iterated.
def source(tag):
    print("source", tag)
    return [1, 2]

lazy = (x + y for x in source("outer") for y in source("inner"))
print("created")
print(list(lazy))
try:
    (x for x in 5)
except TypeError as e:
    print("TypeError", e)
fail = (1 / x for x in [1, 0])
print(next(fail))
try:
    next(fail)
except ZeroDivisionError as e:
    print("ZeroDivisionError", e)
print(next(fail, "ended"))
for f in [lambda: list(x for x in [1, "a"] if x > 0), lambda: [y for y in (1 // x for x in [1, 0])]]:
    try:
        f()
    except (TypeError, ZeroDivisionError) as e:
        print(type(e).__name__)

# Closures see the variable when the expression runs, as in Python.
def make():
    k = 1
    gen = (x * k for x in range(3))
    k = 10
    return list(gen)
print(make())
class Config:
    scale = 3
    values = [1, 2]
    scaled = list(v * 2 for v in values)
print(Config.scaled)
nested = list(list(c for c in w) for w in ["ab", "c"])
print(nested, list(sum(r) for r in [[1, 2], [3]]))
import itertools
infinite = (i * i for i in itertools.count() if i % 2)
print(next(infinite), next(infinite), next(n for n in itertools.count(5) if n % 7 == 0))

# Assignment expressions in comprehensions and generator expressions.
data = [5, 12, 7, 30]
big = [y for x in data if (y := x * 2) > 20]
print(big, y)
print(any((hit := v) > 10 for v in data), hit)
def first_long(words):
    if any(len(found := w) > 3 for w in words):
        return found
    return None
print(first_long(["a", "abcd", "xyzzy"]), first_long(["a"]))
def totals(rows):
    running = 0
    out = [running := running + r for r in rows]
    return out, running
print(totals([1, 2, 3]))
def scoped():
    global counter_g
    vals = [counter_g := i for i in range(3)]
    return vals
counter_g = None
print(scoped(), counter_g)

# Keywords written after ** come after its items in **kwargs.
def f(*args, **kwargs):
    return args, kwargs
d1 = {"a": 1, "b": 2}
print(f(**d1, c=3), f(x=0, **d1, c=3, **{"z": 9}), f(*[1], **d1, **{"c": 4}))
try:
    f(**d1, a=5)
except TypeError as e:
    print("TypeError", str(e).endswith("f() got multiple values for keyword argument 'a'"))
