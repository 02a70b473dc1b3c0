# The forms of import. The engine has no package with submodules (no
# os.path), so "import a.b" and "from a import b" of a submodule are
# checked as lowered code (TestLower in lower_test.go), not run here.
import math
import math as m
from math import sqrt, pi as PI
from collections import Counter as C
print(math.sqrt(16), sqrt(9), PI > 3, m.floor(2.5), m is math, C("abca")["a"])
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
