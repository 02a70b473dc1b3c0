results = "WWLWWWLLWWWWLW"
best = current = 0
best_end = -1
for i, r in enumerate(results):
    if r == "W":
        current += 1
        if current > best:
            best, best_end = current, i
    else:
        current = 0
print(f"longest winning streak: {best} ending at game {best_end + 1}")
wins = results.count("W")
print(f"record: {wins}-{len(results) - wins}")
final_answer(best)
