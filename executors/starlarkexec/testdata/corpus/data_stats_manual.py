data = [12, 15, 11, 19, 24, 15, 13, 17, 15, 21]
n = len(data)
mean = sum(data) / n
ordered = sorted(data)
median = (ordered[n // 2 - 1] + ordered[n // 2]) / 2 if n % 2 == 0 else ordered[n // 2]
variance = sum((x - mean) ** 2 for x in data) / (n - 1)
std = variance ** 0.5
counts = {}
for x in data:
    counts[x] = counts.get(x, 0) + 1
mode = max(counts, key=counts.get)
print(f"mean={mean}, median={median}, mode={mode}")
print(f"variance={variance:.4f}, std={std:.4f}")
final_answer(round(std, 3))
