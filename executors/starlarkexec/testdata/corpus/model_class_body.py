class A:
    x: int = 0
    y: str
    z = 5
A.attr = 1
print(A.x, A.z, A.attr)
x = 10
class B:
    x = x + 1
print(B.x, x)
class C:
    items = [1, 2]
    items.append(3)
    count = len(items)
    if count > 2:
        big = True
    else:
        big = False
    for i in range(2):
        pass
print(C.items, C.count, C.big)
limit = 3
class Config:
    limit = limit * 2
    names = ["a", "b"]
    upper = [s.upper() for s in names]
    if limit > 5:
        mode = "big"
    for k in range(limit):
        last = k
    a, b = 1, 2
print(Config.limit, limit, Config.upper, Config.mode, Config.last, Config.a + Config.b)
class Maybe:
    if False:
        hidden = 1
    shown = 2
print(hasattr(Maybe, "hidden"), hasattr(Maybe, "shown"))
class Counter:
    total = 0
    def bump(self):
        Counter.total += 1
        return Counter.total
c = Counter()
c.bump(); c.bump()
Counter.extra = "set later"
print(Counter.total, Counter.extra, c.extra)
final_answer((Config.limit, Counter.total))
