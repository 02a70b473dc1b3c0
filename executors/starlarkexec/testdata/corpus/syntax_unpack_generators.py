def h():
    yield 1
    yield 2
    raise KeyError('k')
try:
    a, b = h()
except KeyError as e:
    print("KeyError", e)
def inf():
    n = 0
    while True:
        n += 1
        yield n
try:
    a, b = inf()
except ValueError as e:
    print(e)
class C:
    def __iter__(self):
        yield 1
        raise IndexError("i")
try:
    x, y = C()
except IndexError as e:
    print("IndexError", e)
def f():
    a, b, c = (i * i for i in range(3))
    return a + b + c
print(f())
(p, q), r = [iter([1, 2]), 3]
print(p, q, r)
def pairs():
    yield (1, 2)
    yield h()
try:
    for a, b in pairs():
        print("pair", a, b)
except KeyError as e:
    print("KeyError in a for target", e)
points = [(1, 2), [3, 4]]
for i, (x, y) in enumerate(points):
    print(i, x + y)
a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17 = (i * 2 for i in range(17))
print("seventeen", a1, a17)
try:
    a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17 = (i for i in range(18))
except ValueError as e:
    print(e)
final_answer([p, q, r])
