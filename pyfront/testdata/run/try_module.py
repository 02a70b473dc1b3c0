# Module-level try bodies assign real globals, visible at once to
# functions and to later code.
total = 0


def add(n):
    return total + n


try:
    total = 10
    print(add(1))
    for i in range(3):
        total += i
    a, (b, c) = 1, (2, 3)
    import math
    root = math.sqrt(16)

    class Point:
        def __init__(self, x):
            self.x = x

    p = Point(5)
    words = [w.upper() for w in "a b".split()]
    x = y = "chained"
    missing = {}["nope"]
except KeyError as err:
    print("KeyError", err)
finally:
    print("finally sees", total, i)

print(total, i, a, b, c, root, p.x, words, x, y, add(0))
print(isinstance(p, Point))


def later():
    return total * 2


try:
    total = 100
finally:
    pass
print(later())

try:
    def f():
        return "f defined in try"
    print(f())
except Exception:
    pass
print(f())
