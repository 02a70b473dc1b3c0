from datetime import datetime, timedelta, date

launch = datetime(2024, 2, 28, 22, 30)
print(launch + timedelta(hours=3), launch + timedelta(days=1), launch - timedelta(weeks=1))
print((datetime(2025, 1, 1) - launch).days, (datetime(2025, 1, 1) - launch))
print(date(2024, 3, 1) - date(2024, 2, 1), (date(2023, 3, 1) - date(2023, 2, 1)).days)
d = timedelta(days=3, hours=5, minutes=30)
print(d, d.days, d.seconds, d.total_seconds(), d * 2, d / 2, d // timedelta(hours=1))
print(launch.year, launch.month, launch.day, launch.hour, launch.minute, launch.weekday())
print(launch > datetime(2024, 1, 1), max(date(2024, 1, 5), date(2023, 12, 31)))
final_answer((launch + d).isoformat())
