scores = {"alice": [88, 92, 79], "bob": [75, 64, 90], "carol": [95, 98, 100], "dave": []}
averages = {}
for name, values in scores.items():
    if not values:
        print(f"{name} has no scores, skipping")
        continue
    averages[name] = sum(values) / len(values)
for name, avg in sorted(averages.items(), key=lambda kv: kv[1], reverse=True):
    print(f"{name:<6} {avg:6.2f}")
top = max(averages.items(), key=lambda kv: kv[1])
final_answer(top)
