from datetime import date

start = date(2024, 1, 15)
end = date(2024, 12, 25)
delta = end - start
print(f"{delta.days} days between {start} and {end}")
print("weeks:", delta.days // 7, "remainder days:", delta.days % 7)
print(start.strftime("%A, %B %d, %Y"))
print(end.isoformat(), end.weekday(), end.isoweekday())
final_answer(delta.days)
