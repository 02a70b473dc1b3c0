import math
import os.path
import os.path as osp
from math import sqrt, pi as PI
from os import path
print(math.sqrt(16), sqrt(9), PI > 3, os.path.sep, osp.sep, path.sep)
assert 1 + 1 == 2, "math works"
assert True
list = [3, 1, 2]
print(sorted(list))
sum = 5
print(sum)
x = 10
def uses_global():
    return x * 2
print(uses_global())
print(type(1) == type(2))
s = "a,b"
print(s.split(","))
print("%s-%d" % ("a", 3))
print(1 if not [] else 2)
print(2 if [0] else 3)
