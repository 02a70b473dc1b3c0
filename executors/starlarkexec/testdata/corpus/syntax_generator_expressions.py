nums = [4, 8, 15, 16, 23, 42]
print(sum(n * n for n in nums))
print(max(n for n in nums if n % 2), min((n for n in nums), default=0))
print(any(n > 40 for n in nums), all(n > 0 for n in nums))
gen = (n // 2 for n in nums)
print(next(gen), next(gen), list(gen))
print(",".join(str(n) for n in nums if n > 10))
print(sorted((n % 5 for n in nums), reverse=True), tuple(n for n in range(3)))
final_answer(sum(1 for n in nums if n > 10))
