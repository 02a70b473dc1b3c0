values = [3, 7, 1, 9, 4, 6]
lo, hi = min(values), max(values)
normalized = [(v - lo) / (hi - lo) for v in values]
print([round(x, 3) for x in normalized])
mean = sum(values) / len(values)
std = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
z = [round((v - mean) / std, 2) for v in values]
print("z-scores:", z)
final_answer(z)
