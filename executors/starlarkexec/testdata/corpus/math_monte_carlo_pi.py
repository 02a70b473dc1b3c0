import random

random.seed(42)
inside = 0
trials = 20000
for _ in range(trials):
    x, y = random.random(), random.random()
    if x * x + y * y <= 1:
        inside += 1
estimate = 4 * inside / trials
print("inside:", inside)
print(f"pi estimate: {estimate}")
final_answer(estimate)
