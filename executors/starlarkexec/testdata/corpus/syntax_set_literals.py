primes = {2, 3, 5, 7, 11}
evens = {x for x in range(12) if x % 2 == 0}
print(sorted(primes & evens), sorted(primes | evens), sorted(primes - evens), sorted(primes ^ evens))
empty = set()
print(empty, len(empty), {1}, {3, 1, 2})
letters = {c.lower() for c in "Hello World" if c.isalpha()}
print(sorted(letters))
print(3 in primes, 4 not in primes, {1, 2} <= {1, 2, 3}, {1, 2} < {1, 2})
final_answer(sorted(primes - evens))
