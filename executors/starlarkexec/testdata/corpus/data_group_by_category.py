from collections import defaultdict

transactions = [
    ("2024-01-03", "groceries", 54.20),
    ("2024-01-05", "transport", 12.00),
    ("2024-01-09", "groceries", 23.75),
    ("2024-01-12", "entertainment", 40.00),
    ("2024-01-15", "transport", 8.50),
    ("2024-01-20", "groceries", 61.10),
]
by_category = defaultdict(list)
for date, category, amount in transactions:
    by_category[category].append(amount)
summary = {cat: round(sum(v), 2) for cat, v in by_category.items()}
print(summary)
for cat in sorted(summary):
    print(cat, len(by_category[cat]), "transactions")
final_answer(summary)
