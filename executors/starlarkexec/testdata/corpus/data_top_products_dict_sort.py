ratings = {
    "laptop": [4, 5, 5, 3, 4],
    "phone": [5, 5, 4, 5],
    "tablet": [3, 2, 4],
    "watch": [4, 4, 4, 5, 5, 3],
}
avg = {p: sum(r) / len(r) for p, r in ratings.items()}
ranked = sorted(avg, key=lambda p: (-avg[p], p))
for p in ranked:
    print(f"{p:<7} {avg[p]:.2f} ({len(ratings[p])} ratings)")
final_answer(ranked[:2])
