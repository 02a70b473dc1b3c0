records = [
    ("Q1", "north", 100), ("Q1", "south", 80), ("Q2", "north", 120),
    ("Q2", "south", 95), ("Q3", "north", 130), ("Q3", "south", 70),
]
quarters = sorted({q for q, _, _ in records})
regions = sorted({r for _, r, _ in records})
table = {q: {r: 0 for r in regions} for q in quarters}
for q, r, v in records:
    table[q][r] += v
print("quarter | " + " | ".join(regions))
for q in quarters:
    print(q, "|", " | ".join(str(table[q][r]) for r in regions))
totals = {r: sum(table[q][r] for q in quarters) for r in regions}
print("totals:", totals)
final_answer(totals)
