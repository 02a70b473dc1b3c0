values = [3.14159265, 1234567.891, 0.000123, -42.0, 1e21, 2 / 3]
for v in values:
    print(v, repr(v), str(v), f"{v:.3f}", f"{v:e}", f"{v:g}", f"{v:,.1f}")
print(float("inf"), float("-inf"), float("nan"), float("1e3"), float(" 2.5 "))
print(1.0, 100.0, 1e100, 1.23e-7, 12345678901234567890.0)
final_answer(2 / 3)
