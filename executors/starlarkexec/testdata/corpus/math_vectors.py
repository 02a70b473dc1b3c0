def dot(u, v):
    return sum(a * b for a, b in zip(u, v))

def norm(u):
    return dot(u, u) ** 0.5

def cosine(u, v):
    return dot(u, v) / (norm(u) * norm(v))

docs = {"d1": [1, 0, 2, 3], "d2": [0, 1, 2, 2], "d3": [3, 0, 0, 1]}
query = [1, 0, 1, 1]
scores = {k: round(cosine(query, v), 4) for k, v in docs.items()}
print(scores)
cross = [2 * 6 - 3 * 5, 3 * 4 - 1 * 6, 1 * 5 - 2 * 4]
print("cross of (1,2,3)x(4,5,6):", cross)
final_answer(max(scores, key=scores.get))
