from fractions import Fraction
from decimal import Decimal, ROUND_HALF_UP

a = Fraction(1, 3) + Fraction(1, 6)
print(a, a.numerator, a.denominator, float(a), Fraction("0.75"), Fraction(3, 9) * 3)
print(sum(Fraction(1, n) for n in range(1, 5)))
price = Decimal("19.99")
qty = 3
total = price * qty
print(total, Decimal("0.1") + Decimal("0.2"), Decimal("1.005").quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
print(repr(total), str(Decimal(10) / Decimal(4)))
final_answer(str(total))
