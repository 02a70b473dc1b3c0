import math
class T:
    def __trunc__(self): return 42
    def __floor__(self): return "fl"
class F:
    def __float__(self): return 2.5
class N: pass
def attempt(f):
    try: print(repr(f()))
    except Exception as e: print(type(e).__name__, e)
attempt(lambda: math.trunc(T()))
attempt(lambda: math.floor(T()))
attempt(lambda: math.ceil(T()))
attempt(lambda: math.floor(F()))
attempt(lambda: math.trunc(F()))
attempt(lambda: math.trunc(N()))
attempt(lambda: math.trunc("x"))
attempt(lambda: math.floor("x"))
attempt(lambda: math.trunc(-2.5))
attempt(lambda: math.trunc(True))
from fractions import Fraction
from decimal import Decimal
attempt(lambda: math.trunc(Fraction(-7, 2)))
attempt(lambda: math.trunc(Decimal("-3.7")))
final_answer("done")
