import random

random.seed(12345)
print(random.random(), random.randint(1, 100), random.randrange(0, 50, 5))
print(random.choice(["red", "green", "blue"]), random.uniform(1.5, 2.5))
deck = list(range(10))
random.shuffle(deck)
print(deck)
print(random.sample(range(100), 5), random.choices("abc", k=6))
print(random.choices(["x", "y"], weights=[0.9, 0.1], k=5))
print(round(random.gauss(0, 1), 12))
final_answer(random.randint(1, 6))
