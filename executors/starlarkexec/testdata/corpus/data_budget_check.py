budget = {"rent": 1200, "food": 400, "fun": 150, "travel": 300}
spent = {"rent": 1200, "food": 455.3, "fun": 90, "travel": 312.75, "gifts": 60}
over = {}
for category, amount in spent.items():
    limit = budget.get(category, 0)
    diff = amount - limit
    status = "OVER" if diff > 0 else "ok"
    print(f"{category:>8}: spent {amount:>8.2f} of {limit:>6} -> {status}")
    if diff > 0:
        over[category] = round(diff, 2)
print("Total over budget:", round(sum(over.values()), 2))
final_answer(over)
