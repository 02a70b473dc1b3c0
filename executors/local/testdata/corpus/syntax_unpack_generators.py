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
final_answer([p, q, r])
