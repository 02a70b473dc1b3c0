def factorize(n):
    factors = {}
    d = 2
    while d * d <= n:
        while n % d == 0:
            factors[d] = factors.get(d, 0) + 1
            n //= d
        d += 1
    if n > 1:
        factors[n] = factors.get(n, 0) + 1
    return factors

for n in [360, 97, 1001, 2 ** 10 * 3 ** 4, 600851475143]:
    f = factorize(n)
    text = " * ".join(f"{p}^{e}" if e > 1 else str(p) for p, e in f.items())
    print(f"{n} = {text}")
final_answer(max(factorize(600851475143)))
