from math import comb

rows = []
row = [1]
for _ in range(8):
    rows.append(row)
    row = [1] + [a + b for a, b in zip(row, row[1:])] + [1]
width = len(" ".join(map(str, rows[-1])))
for r in rows:
    print(" ".join(map(str, r)).center(width))
print(all(rows[7][k] == comb(7, k) for k in range(8)))
final_answer(rows[-1])
