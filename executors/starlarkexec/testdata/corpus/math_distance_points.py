import math

cities = {"A": (0, 0), "B": (3, 4), "C": (-2, 7), "D": (6, -1)}
pairs = []
names = sorted(cities)
for i, a in enumerate(names):
    for b in names[i + 1:]:
        d = math.dist(cities[a], cities[b])
        pairs.append((round(d, 3), a, b))
pairs.sort()
for p in pairs:
    print(p)
closest = pairs[0]
print("closest pair:", closest[1], closest[2])
final_answer(closest)
