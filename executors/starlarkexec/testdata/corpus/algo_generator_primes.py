def primes():
    found = []
    n = 2
    while True:
        if all(n % p for p in found if p * p <= n):
            found.append(n)
            yield n
        n += 1

gen = primes()
first_ten = [next(gen) for _ in range(10)]
print(first_ten)
for p in gen:
    if p > 100:
        print("first prime above 100:", p)
        break
final_answer(first_ten)
