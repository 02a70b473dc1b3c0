prices = [101.5, 102.0, 99.8, 100.4, 103.9, 105.2, 104.7, 106.3, 107.0, 105.5]
window = 3
moving = []
for i in range(len(prices) - window + 1):
    chunk = prices[i:i + window]
    moving.append(round(sum(chunk) / window, 3))
print("Moving averages:", moving)
changes = [round(b - a, 2) for a, b in zip(prices, prices[1:])]
print("Daily changes:", changes)
up_days = sum(1 for c in changes if c > 0)
print(f"Up days: {up_days}/{len(changes)}")
final_answer({"ma": moving[-1], "up_days": up_days})
