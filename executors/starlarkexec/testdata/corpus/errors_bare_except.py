items = [{"price": 10}, {"cost": 4}, None, {"price": "12"}, {"price": 7.5}]
total = 0
skipped = 0
for item in items:
    try:
        total += item["price"] * 1.0
    except:
        skipped += 1
        print("skipped", item)
print(total, skipped)
final_answer((total, skipped))
