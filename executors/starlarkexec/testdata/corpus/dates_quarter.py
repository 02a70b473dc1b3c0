from datetime import date

def quarter(d):
    return (d.month - 1) // 3 + 1

invoices = [date(2024, 1, 20), date(2024, 3, 31), date(2024, 4, 1), date(2024, 8, 15), date(2024, 11, 2), date(2024, 12, 31)]
counts = {}
for d in invoices:
    q = f"Q{quarter(d)}"
    counts[q] = counts.get(q, 0) + 1
print(counts)
final_answer(max(counts, key=counts.get))
