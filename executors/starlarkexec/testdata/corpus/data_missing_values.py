rows = [
    {"city": "Lyon", "temp": 21.5, "humidity": None},
    {"city": "Nice", "temp": None, "humidity": 0.62},
    {"city": "Lille", "temp": 17.0, "humidity": 0.81},
    {"city": "Brest", "temp": 15.5, "humidity": None},
]
fields = ["temp", "humidity"]
missing = {f: sum(1 for r in rows if r[f] is None) for f in fields}
print("missing per field:", missing)
means = {}
for f in fields:
    present = [r[f] for r in rows if r[f] is not None]
    means[f] = sum(present) / len(present)
for r in rows:
    for f in fields:
        if r[f] is None:
            r[f] = round(means[f], 3)
print(rows)
final_answer(means)
