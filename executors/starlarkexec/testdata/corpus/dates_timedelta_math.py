from datetime import datetime, timedelta

start = datetime(2024, 3, 10, 8, 30)
durations = [timedelta(hours=1, minutes=45), timedelta(minutes=90), timedelta(hours=2, seconds=30)]
t = start
for d in durations:
    t += d
    print(t.strftime("%H:%M:%S"), "after", d)
total = sum(durations, timedelta())
print("total:", total, total.total_seconds())
print(timedelta(days=1, hours=-1), timedelta(seconds=-5))
final_answer(str(total))
