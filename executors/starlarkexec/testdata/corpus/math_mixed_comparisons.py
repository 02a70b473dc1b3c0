from decimal import Decimal
from fractions import Fraction
from enum import IntEnum

class Level(IntEnum):
    LOW = 1
    HIGH = 3

balances = [Decimal("10.50"), Decimal("-2.25"), Decimal("0")]
positive = [b for b in balances if b > 0]
print("positive:", positive)
print("overdrawn:", [b for b in balances if b < 0], [b for b in balances if b <= 0])
print(Decimal("2.5") >= 2.5, Decimal("2.5") > 2)
print(True < 2, False >= 0, 1 > True)
print(Level.HIGH > 2, Level.LOW <= 1, Level.LOW < 1)
ratios = [Fraction(1, 3), Fraction(5, 2), Fraction(-1, 2)]
print([r for r in ratios if r > 1], [r for r in ratios if r >= -0.5])
x = 7
print(x > 5, x < 5.5, -1 < x, x >= 7, x <= -3)
f = 2.5
print(f > 2, f < 3, f >= 2.5)
print(float("nan") > 0, float("nan") < 0, float("inf") > 10**20)
try:
    "abc" > 0
except TypeError as e:
    print("TypeError:", e)
try:
    None < 1
except TypeError as e:
    print("TypeError:", e)
try:
    [1] >= 2
except TypeError as e:
    print("TypeError:", e)
final_answer(len(positive))
