rows = [("Item", "Qty", "Price"), ("Coffee", 2, 3.5), ("Bagel", 12, 1.25), ("Orange juice", 1, 4.0)]
widths = [max(len(str(r[i])) for r in rows) for i in range(3)]
for i, r in enumerate(rows):
    cells = [str(r[0]).ljust(widths[0]), str(r[1]).rjust(widths[1]), str(r[2]).rjust(widths[2])]
    print(" | ".join(cells))
    if i == 0:
        print("-+-".join("-" * w for w in widths))
total = sum(q * p for _, q, p in rows[1:])
print("Total:".rjust(sum(widths) + 4), total)
final_answer(total)
