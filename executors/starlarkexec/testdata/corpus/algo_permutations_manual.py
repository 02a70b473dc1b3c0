def permutations(items):
    if len(items) <= 1:
        return [items[:]]
    result = []
    for i, x in enumerate(items):
        for rest in permutations(items[:i] + items[i + 1:]):
            result.append([x] + rest)
    return result

perms = permutations(["a", "b", "c", "d"])
print(len(perms))
print(["".join(p) for p in perms[:6]])
valid = ["".join(p) for p in perms if p.index("a") < p.index("d")]
final_answer(len(valid))
