table = """
| Country | Capital | Population (M) |
|---------|---------|----------------|
| France  | Paris   | 68.0           |
| Japan   | Tokyo   | 124.5          |
| Brazil  | Brasília| 216.4          |
| Kenya   | Nairobi | 55.1           |
"""
rows = []
for line in table.strip().splitlines()[2:]:
    cells = [c.strip() for c in line.strip("|").split("|")]
    rows.append({"country": cells[0], "capital": cells[1], "pop": float(cells[2])})
rows.sort(key=lambda r: r["pop"], reverse=True)
for r in rows:
    print(f"{r['country']:<8}{r['capital']:<10}{r['pop']:>7.1f}")
print("total population:", round(sum(r["pop"] for r in rows), 1))
final_answer(rows[0]["capital"])
