from datetime import datetime, date

stamps = ["2024-05-01T08:00:00", "2024-05-01T17:30:00", "2024-05-02T09:15:00", "2024-05-02T18:45:00"]
times = [datetime.fromisoformat(s) for s in stamps]
worked = {}
for start, end in zip(times[::2], times[1::2]):
    hours = (end - start).seconds / 3600
    worked[start.date().isoformat()] = hours
    print(start.date(), f"{hours:.2f}h")
print(date.fromisoformat("2024-05-02") in [t.date() for t in times])
final_answer(sum(worked.values()))
