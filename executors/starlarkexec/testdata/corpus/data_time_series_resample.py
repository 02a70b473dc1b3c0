minute_temps = [(0, 20.1), (15, 20.4), (30, 20.9), (45, 21.3), (60, 21.0), (75, 20.7), (90, 20.2), (105, 19.8)]
hourly = {}
for minute, temp in minute_temps:
    hour = minute // 60
    hourly.setdefault(hour, []).append(temp)
result = {h: round(sum(t) / len(t), 2) for h, t in hourly.items()}
for h, avg in result.items():
    print(f"hour {h}: avg {avg} from {len(hourly[h])} readings")
trend = "warming" if result[1] > result[0] else "cooling"
print(trend)
final_answer(result)
