import math

print(math.gcd(48, 18), math.lcm(4, 6), math.isqrt(10 ** 12 + 1), math.comb(52, 5), math.perm(10))
print(math.exp(1), math.expm1(1e-10), math.log1p(1e-10), math.pow(2, 0.5), math.cbrt(27))
print(math.asin(1), math.acos(0), math.atan(1), math.sinh(1), math.cosh(0), math.tanh(0.5))
print(math.erf(1), math.gamma(5), math.lgamma(10), math.dist([0, 0, 0], [1, 2, 2]))
print(math.nextafter(1.0, 2.0) > 1.0, math.ulp(1.0), math.fsum([0.1] * 10))
print(math.inf > 10 ** 300, math.nan != math.nan, math.prod(range(1, 8), start=2))
final_answer(math.comb(52, 5))
