hours = [1, 2, 3, 4, 5, 6, 7, 8]
scores = [52, 55, 61, 64, 70, 71, 79, 83]
n = len(hours)
mx, my = sum(hours) / n, sum(scores) / n
cov = sum((x - mx) * (y - my) for x, y in zip(hours, scores))
vx = sum((x - mx) ** 2 for x in hours)
vy = sum((y - my) ** 2 for y in scores)
r = cov / (vx * vy) ** 0.5
slope = cov / vx
intercept = my - slope * mx
print(f"r = {r:.4f}")
print(f"score = {slope:.3f} * hours + {intercept:.3f}")
prediction = slope * 10 + intercept
final_answer(round(prediction, 1))
