words = ["listen", "silent", "enlist", "google", "gooegl", "cat", "act", "tac", "dog"]
groups = {}
for w in words:
    key = "".join(sorted(w))
    groups.setdefault(key, []).append(w)
multi = [g for g in groups.values() if len(g) > 1]
for g in multi:
    print(len(g), g)
final_answer(sorted(multi, key=len, reverse=True)[0])
