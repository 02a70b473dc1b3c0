import math

print(math.factorial(20), math.isqrt(99), math.sqrt(2))
print(math.log(100, 10), math.log10(1000), math.log2(1024), math.log(math.e))
print(math.fsum([0.1] * 10), sum([0.1] * 10))
print(math.prod([1, 2, 3, 4, 5]), math.perm(5, 2), math.comb(10, 3))
print(math.copysign(3, -0.0), math.fabs(-4), math.fmod(-7, 3), math.remainder(7, 3))
print(math.isclose(1.0, 1.0 + 1e-10), math.isinf(1e308 * 10), math.isfinite(1.0))
print(math.floor(3.7), math.ceil(3.2), math.modf(3.25), math.frexp(8.0), math.ldexp(0.5, 4))
final_answer(math.factorial(10) // math.factorial(7))
