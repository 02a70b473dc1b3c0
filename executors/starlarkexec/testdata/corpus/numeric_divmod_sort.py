# divmod of floats and math.pow as CPython computes them; a sort whose
# key changes the list, and a list sorted while it is iterated.
import math
print(divmod(-6.0, 3.0), divmod(1, 0.1), divmod(0.0, -1.0), divmod(-5.0, math.inf))
print(divmod(7.5, -2), divmod(-7, 2.0), divmod(True, 0.5), divmod(10**20, 3.0))
print(math.pow(8, 1/3), math.pow(27, 1/3), math.pow(2, 0.5), math.pow(10, -2))
try:
    divmod(1.0, 0)
except ZeroDivisionError as e:
    print('ZeroDivisionError', e)
xs = [3, 1, 2]


def k(v):
    xs.append(v)
    return v


try:
    xs.sort(key=k)
except ValueError as e:
    print('ValueError', e)
print(xs)
ys = [5, 3, 4, 1]
seen = []
for y in ys:
    seen.append(y)
    ys.sort()
print(seen, ys)
final_answer(divmod(1, 0.1))
