from datetime import date, timedelta

year, month = 2024, 2
first = date(year, month, 1)
next_month = date(year + (month == 12), month % 12 + 1, 1)
days_in_month = (next_month - first).days
print(first.strftime("%B %Y"), "has", days_in_month, "days")
weekends = 0
d = first
while d < next_month:
    if d.weekday() >= 5:
        weekends += 1
    d += timedelta(days=1)
print("weekend days:", weekends)
final_answer(days_in_month - weekends)
