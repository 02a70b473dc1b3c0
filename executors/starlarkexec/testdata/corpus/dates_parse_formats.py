from datetime import datetime

raw = ["2024-02-29 13:45:00", "15/08/2023 07:05", "Mar 3 2022", "2021-12-31T23:59:59"]
formats = ["%Y-%m-%d %H:%M:%S", "%d/%m/%Y %H:%M", "%b %d %Y", "%Y-%m-%dT%H:%M:%S"]
parsed = []
for text in raw:
    for fmt in formats:
        try:
            parsed.append(datetime.strptime(text, fmt))
            break
        except ValueError:
            continue
for p in parsed:
    print(p, p.strftime("%Y/%m/%d %I:%M %p"))
latest = max(parsed)
final_answer(latest.isoformat())
