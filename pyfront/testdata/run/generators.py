# Generator functions: lazy, resumable, with Python's exceptions.
def count(n):
    print("start", n)
    i = 0
    while i < n:
        print("yield", i)
        yield i
        i += 1
    print("end")
    return "done"

g = count(3)
print("created")
print(next(g))
for x in g:
    print("got", x)
print(next(g, "exhausted"))
try:
    next(g)
except StopIteration:
    print("StopIteration")
print(type(g).__name__, list(count(0)))

# break leaves the generator suspended; it continues where it stopped.
def naturals():
    n = 0
    while True:
        yield n
        n += 1

nat = naturals()
for n in nat:
    if n == 3:
        break
print(next(nat), [next(nat) for _ in range(3)])
print(list(zip(naturals(), "abc")), dict(enumerate(count(2))))

# Exceptions raised by the body reach the consumer at next(), in loops,
# comprehensions and builtins; the generator is then finished.
def fails(after):
    for i in range(after):
        yield i
    raise KeyError("k%d" % after)

for f in [lambda: next(fails(0)), lambda: list(fails(2)), lambda: sum(fails(3)),
          lambda: [x for x in fails(1)], lambda: {x: 1 for x in fails(2)},
          lambda: sorted(fails(1)), lambda: ",".join(str(x) for x in fails(2)),
          lambda: max(fails(1)), lambda: print(*fails(2)), lambda: [*fails(1)],
          lambda: list(zip(fails(1), fails(3)))]:
    try:
        print("no error", f())
    except KeyError as e:
        print("KeyError", e)

def loop(gen):
    seen = []
    try:
        for x in gen:
            seen.append(x)
        print("completed", seen)
    except KeyError as e:
        print("loop caught", e, seen)
    for i, x in enumerate(gen):
        print("after the error", i, x)
    return seen

loop(fails(3))
loop(count(2))
bad = fails(1)
print(next(bad))
try:
    next(bad)
except LookupError as e:
    print("LookupError", repr(e))
print(next(bad, "finished after raising"))

def inner_stop():
    yield 1
    next(iter([]))

try:
    list(inner_stop())
except RuntimeError as e:
    print("RuntimeError", e)

# send, yield as an expression, return values and yield from.
def echo():
    received = []
    while True:
        x = yield len(received)
        if x is None:
            return received
        received.append(x)

e = echo()
print(next(e), e.send("a"), e.send("b"))
try:
    e.send(None)
except StopIteration:
    print("echo stopped")

def delegate():
    r = yield from echo()
    print("echo returned", r)
    yield from [10, 20]
    yield from (c for c in "xy")
    return "delegated"

d = delegate()
print(next(d), d.send(1), d.send(2))
print(d.send(None), list(d))

def tree(node, depth=0):
    yield depth, node["name"]
    for child in node.get("children", []):
        yield from tree(child, depth + 1)

t = {"name": "root", "children": [{"name": "a", "children": [{"name": "a1"}]}, {"name": "b"}]}
print(list(tree(t)))
print(["  " * d + n for d, n in tree(t)])

# close and throw.
def guarded():
    try:
        yield 1
        yield 2
    except ValueError as e:
        print("caught in generator", e)
        yield 99
    print("cleanup")

c = guarded()
print(next(c))
c.close()
print(next(c, "closed"))
t2 = guarded()
next(t2)
print(t2.throw(ValueError("boom")))
print(next(t2, "after throw"))
c3 = guarded()
c3.close()
print(list(c3))

def me():
    yield next(mine)

mine = me()
try:
    next(mine)
except ValueError as e:
    print("ValueError", e)

# Generators in classes, closures and with arguments of every kind.
class Deck:
    def __init__(self, cards):
        self.cards = cards

    def __iter__(self):
        for c in self.cards:
            yield c.upper()

    def pairs(self, *extra, sep="-", **kw):
        for a, b in zip(self.cards, self.cards[1:] + list(extra)):
            yield a + sep + b + kw.get("end", "")

deck = Deck(["a", "b", "c"])
print(list(deck), list(deck.pairs("z", sep="+", end="!")))

def counter():
    total = 0
    def gen(step):
        nonlocal total
        for _ in range(3):
            total += step
            yield total
    return gen

print(list(counter()(5)))

# The list a suspended generator iterates can still change.
items = [1, 2]
it = (x * 10 for x in items)
print(next(it))
items.append(3)
print(list(it))
def over(d):
    for k in d:
        yield k
keys = over({"a": 1, "b": 2})
print(next(keys))
lst = [1, 2, 3]
walker = (x for x in lst)
next(walker)
lst.append(4)
lst.remove(1)
print(list(walker))

# Objects with __iter__ and __next__ are iterated lazily too.
class Counter:
    def __init__(self):
        self.n = 0
    def __iter__(self):
        print("iter called")
        return self
    def __next__(self):
        self.n += 1
        if self.n == 5:
            raise KeyError("five")
        return self.n
for v in Counter():
    print("counter", v)
    if v == 2:
        break
try:
    for v in Counter():
        print("counter again", v)
except KeyError as e:
    print("KeyError", e)
print(next(x * 2 for x in Counter()), list(zip(Counter(), "ab")))
