inf = float("inf")
nan = float("nan")
print(inf, -inf, nan, inf > 1e308, inf - inf, nan == nan, nan != nan)
print(float("Infinity"), float("-INF"), float("1_000.5"), float("  -3.25\n"))
print(min(5, inf), max(-inf, -1), inf * 0, 1 / inf)
print(1e308 * 10, -1e308 * 10, 2.0 ** 1023 * 2 == inf)
import math
print(math.isinf(inf), math.isnan(nan), str(inf), repr(nan))
final_answer([inf, -inf])
