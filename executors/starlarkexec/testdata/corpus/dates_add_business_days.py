from datetime import date, timedelta

def add_business_days(d, n):
    while n > 0:
        d += timedelta(days=1)
        if d.weekday() < 5:
            n -= 1
    return d

start = date(2024, 3, 28)
holidays = {date(2024, 4, 1)}
due = add_business_days(start, 10)
print("naive due date:", due)
extra = sum(1 for h in holidays if start < h <= due and h.weekday() < 5)
due = add_business_days(due, extra)
print("due date with holidays:", due, due.strftime("%a"))
final_answer(due.isoformat())
