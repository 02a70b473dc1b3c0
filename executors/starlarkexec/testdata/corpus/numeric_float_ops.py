# Float //, %, ** and ordered comparisons with NaN, as CPython computes
# them; shifts past go.starlark.net's count limit; guarded operators on
# ints, bools, strs and instances.
import math
nan = float('nan')
a, b = nan, nan
print(a >= b, a <= b, a > 1.0, 1.0 < a, a < 1.0, a == b, a != b)
x, y = -6.0, 3.0
print(x % y, y % -y, -0.0 % 5.0, 0.0 % -5.0, x // y)
print(1 // 0.1, 1 % 0.1, -5.0 // math.inf, -5.0 % math.inf)
print(8 ** (1/3), pow(8, 1/3), 27 ** (1/3), 10.0 ** -2)
n = 100000
print((1 << n).bit_length(), (-1) >> n, (1 << n) >> (n - 3), 12345 >> 70)
try:
    1 << (1 << 40)
except MemoryError as e:
    print('MemoryError')


def f(a, b):
    return a // b, a % b, a < b, a >= b, a * b


print(f(7, 2), f(-7.5, 2), f(True, 3), f(3, True), f(2**70, 3))
s = "%d items"
print(s % 5)


def g():
    t = 0
    for i in range(10):
        t += i * i
        t //= 1
        t %= 1000
        t *= 2
        t <<= 1
        t >>= 1
    return t


print(g())


class V:
    def __init__(s, v):
        s.v = v

    def __lt__(s, o):
        return s.v < o.v

    def __floordiv__(s, o):
        return 'fd'

    def __rmod__(s, o):
        return 'rmod'

    def __mul__(s, o):
        return 'mul'


print(V(1) < V(2), V(1) // 3, 5 % V(1), V(1) * 2, sorted([V(3), V(1)])[0].v)
print(3 < 2.5, 'a' < 'b', [1, 2] < [1, 3], (1, nan) < (1, 2))
try:
    print(1 < 'a')
except TypeError as e:
    print(e)
for z in [0, 0.0]:
    try:
        print(5 % z)
    except ZeroDivisionError as e:
        print(e)
    try:
        print(5.5 // z)
    except ZeroDivisionError as e:
        print(e)
try:
    print(1 << -1)
except ValueError as e:
    print(e)
final_answer(-6.0 % 3.0)
