def collatz_length(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps

lengths = {n: collatz_length(n) for n in range(1, 3000)}
best = max(lengths, key=lengths.get)
print(f"longest chain below 3000 starts at {best} ({lengths[best]} steps)")
print([collatz_length(n) for n in range(1, 11)])
final_answer(best)
