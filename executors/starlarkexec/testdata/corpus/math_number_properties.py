def divisors(n):
    small = [d for d in range(1, int(n ** 0.5) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))

perfect = [n for n in range(2, 10_000) if sum(divisors(n)[:-1]) == n]
print("perfect numbers:", perfect)
print("divisors of 360:", divisors(360), len(divisors(360)))
armstrong = [n for n in range(100, 1000) if sum(int(d) ** 3 for d in str(n)) == n]
print("armstrong:", armstrong)
final_answer(perfect)
