log = """2024-03-01 12.5 rain
2024-03-02 14.1 sun
2024-03-03 9.8 rain
2024-03-04 11.0 cloud
2024-03-05 16.4 sun
2024-03-06 15.2 sun"""
entries = []
for line in log.splitlines():
    day, temp, sky = line.split()
    entries.append((day, float(temp), sky))
sunny = [e for e in entries if e[2] == "sun"]
print(f"{len(sunny)} sunny days, avg temp {sum(e[1] for e in sunny) / len(sunny):.2f}")
warmest = max(entries, key=lambda e: e[1])
coldest = min(entries, key=lambda e: e[1])
print("warmest:", warmest)
print("coldest:", coldest)
spread = warmest[1] - coldest[1]
final_answer(round(spread, 1))
