def distance(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]

typo = "pyhton"
dictionary = ["python", "photon", "typhoon", "java", "pylon"]
scored = sorted((distance(typo, w), w) for w in dictionary)
print(scored)
final_answer(scored[0][1])
