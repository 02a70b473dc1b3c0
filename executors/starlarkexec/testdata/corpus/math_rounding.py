values = [0.5, 1.5, 2.5, -0.5, -1.5, 2.675, 1.005, 12345.6789]
for v in values:
    print(v, round(v), round(v, 2), int(v), f"{v:.0f}")
print(round(1234.5678, -2), round(15, -1), round(25, -1), type(round(2.5)), type(round(2.5, 1)))
import math
print(math.floor(-2.5), math.ceil(-2.5), math.trunc(-2.7))
final_answer([round(v) for v in values])
