# Comparisons between an instance and a value of another type ask the
# instance's __lt__/__gt__/... (reflected when it is on the right); bound
# methods of one function and object are equal; two OrderedDicts compare
# their order too; math.fmod and math.pow at NaN and infinities.
import math
from collections import OrderedDict
class Version:
    def __init__(self, n):
        self.n = n
    def __lt__(self, other):
        return self.n < (other.n if isinstance(other, Version) else other)
    def __gt__(self, other):
        return self.n > (other.n if isinstance(other, Version) else other)
    def __le__(self, other):
        return not self > other
    def bump(self):
        return Version(self.n + 1)
v = Version(3)
print(v < 4, v > 4, 4 < v, 2 < v, v <= 3, 3 >= v, v < 3.5, Version(1) < v)
print(sorted([5, v, 1], key=lambda x: x.n if isinstance(x, Version) else x)[1] is v)
class NoOrder:
    pass
try:
    NoOrder() < 1
except TypeError as e:
    print('TypeError', e)
print(v.bump == v.bump, v.bump != v.bump, Version(3).bump == v.bump, len({v.bump, v.bump}))
a, b = OrderedDict(x=1, y=2), OrderedDict(y=2, x=1)
print(a == b, a != b, a == dict(b), dict(a) == b, a == OrderedDict(x=1, y=2))
print(math.fmod(float('nan'), 0.0), math.fmod(1.0, float('nan')), math.pow(0.0, float('-inf')))
for args in [(float('inf'), 2.0), (1.0, 0.0)]:
    try:
        math.fmod(*args)
    except ValueError as e:
        print('ValueError', e)
try:
    math.pow(0.0, -1.0)
except ValueError as e:
    print('ValueError', e)
final_answer([x.n for x in sorted([Version(2), Version(1)])])
