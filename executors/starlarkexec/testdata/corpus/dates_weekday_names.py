from datetime import date, timedelta

names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
d = date(2024, 2, 26)
week = []
for i in range(7):
    day = d + timedelta(days=i)
    week.append((day.day, names[day.weekday()]))
print(week)
fridays_13 = []
for year in (2023, 2024, 2025):
    for month in range(1, 13):
        if date(year, month, 13).weekday() == 4:
            fridays_13.append(f"{year}-{month:02d}")
print(fridays_13)
final_answer(len(fridays_13))
