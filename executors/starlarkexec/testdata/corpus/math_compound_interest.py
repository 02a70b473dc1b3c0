principal = 10_000
rate = 0.045
years = 10
for n, label in [(1, "yearly"), (12, "monthly"), (365, "daily")]:
    amount = principal * (1 + rate / n) ** (n * years)
    print(f"{label:>8}: {amount:,.2f}")
import math
continuous = principal * math.exp(rate * years)
print(f"continuous: {continuous:,.2f}")
final_answer(round(continuous, 2))
