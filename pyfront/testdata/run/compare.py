calls = []
def f(v):
    calls.append(v)
    return v
print(1 < 2 < 3, 3 > 2 > 5, 1 < 2 <= 2 < 3)
print(f(1) < f(2) < f(3), calls)
calls = []
print(f(5) < f(2) < f(3), calls)
x = 5
print(0 < x < 10, 0 < x > 10, 1 == 1 != 2)
print([1] is [1], None is not None, x is not None)
a = [1]
b = a
print(a is b, a is not b)
print(2 in [1, 2], 3 not in [1, 2], "b" in "abc", not 1 in [1])
print(x == 5 is not None)
items = [3, 7, 12]
print([i for i in items if 2 < i < 10])
def g(lo, hi):
    return [v for v in range(20) if lo <= v * 2 < hi]
print(g(3, 9))
