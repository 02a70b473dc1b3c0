from datetime import date

dates = [date(2024, 1, 1), date(2024, 12, 30), date(2021, 1, 3), date(2026, 7, 4)]
for d in dates:
    iso = d.isocalendar()
    print(d, "-> ISO year", iso[0], "week", iso[1], "day", iso[2])
week_numbers = [d.isocalendar()[1] for d in dates]
print(date.fromisoformat("2024-05-17").toordinal())
final_answer(week_numbers)
