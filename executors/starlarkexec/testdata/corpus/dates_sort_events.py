from datetime import datetime

events = [
    ("deploy", "2024-04-02 16:00"),
    ("standup", "2024-04-02 09:15"),
    ("retro", "2024-04-01 15:30"),
    ("lunch", "2024-04-02 12:00"),
]
parsed = [(name, datetime.strptime(ts, "%Y-%m-%d %H:%M")) for name, ts in events]
parsed.sort(key=lambda e: e[1])
for name, when in parsed:
    print(f"{when:%a %d %b %H:%M}  {name}")
gaps = [(b[1] - a[1]).total_seconds() / 3600 for a, b in zip(parsed, parsed[1:])]
print("gaps in hours:", gaps)
final_answer([name for name, _ in parsed])
