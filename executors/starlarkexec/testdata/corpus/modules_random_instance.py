import random

rng = random.Random(7)
rolls = [rng.randint(1, 6) for _ in range(10)]
print(rolls)
print(sorted(set(rolls)))
other = random.Random(7)
print([other.randint(1, 6) for _ in range(10)] == rolls)
random.seed("text seed")
print(random.random())
random.seed(2024)
sample = random.sample(["ann", "bob", "cid", "dee", "eve"], 3)
print(sample)
final_answer(rolls)
