ratings = {
    "ann": {"dune": 5, "alien": 4, "heat": 1},
    "bob": {"dune": 4, "alien": 5, "up": 2},
    "cyd": {"heat": 5, "up": 4, "alien": 1},
}
def similarity(a, b):
    common = set(ratings[a]) & set(ratings[b])
    if not common:
        return 0.0
    return 1 / (1 + sum((ratings[a][m] - ratings[b][m]) ** 2 for m in common) ** 0.5)

target = "ann"
scores = {}
for other in ratings:
    if other == target:
        continue
    sim = similarity(target, other)
    for movie, r in ratings[other].items():
        if movie not in ratings[target]:
            scores[movie] = scores.get(movie, 0) + sim * r
print({m: round(s, 3) for m, s in scores.items()})
final_answer(max(scores, key=scores.get))
