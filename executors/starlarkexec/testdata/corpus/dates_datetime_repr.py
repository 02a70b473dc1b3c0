from datetime import date, datetime, time, timedelta

values = [date(2024, 1, 2), datetime(2024, 1, 2, 3, 4, 5), time(9, 30), timedelta(days=2, hours=3), datetime(2024, 1, 2)]
for v in values:
    print(str(v), "|", repr(v))
print([date(2020, 5, 17)])
final_answer({"when": date(2024, 1, 2), "span": timedelta(minutes=90)})
