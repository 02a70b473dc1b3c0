from datetime import date, timedelta

today = date(2024, 9, 10)
deadlines = {"report": date(2024, 9, 8), "taxes": date(2024, 9, 15), "renewal": date(2024, 10, 1), "review": date(2024, 9, 10)}
overdue, soon, later = [], [], []
for task, due in sorted(deadlines.items(), key=lambda kv: kv[1]):
    left = (due - today).days
    if left < 0:
        overdue.append(task)
    elif left <= 7:
        soon.append(task)
    else:
        later.append(task)
    print(f"{task:<8} due {due} ({left:+d} days)")
print(today + timedelta(weeks=2))
final_answer({"overdue": overdue, "soon": soon, "later": later})
