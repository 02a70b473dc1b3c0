from datetime import date, datetime

d = date(2024, 3, 9)
t = datetime(2024, 3, 9, 14, 5)
print(f"{d:%Y-%m-%d} {d:%d %b %Y} {d:%A}")
print(f"{t:%H:%M} on {t:%a %d/%m}")
print(f"{d!r} {d!s} {t}")
final_answer(f"{t:%Y%m%d-%H%M}")
