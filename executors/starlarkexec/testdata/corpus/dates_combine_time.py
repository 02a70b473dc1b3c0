from datetime import date, datetime, time, timedelta

meeting_day = date(2024, 7, 15)
slots = [time(9, 0), time(10, 30), time(14, 0), time(16, 45)]
length = timedelta(minutes=50)
schedule = []
for s in slots:
    begin = datetime.combine(meeting_day, s)
    finish = begin + length
    schedule.append((begin.strftime("%H:%M"), finish.strftime("%H:%M")))
    print(f"{begin:%H:%M}-{finish:%H:%M}")
after_lunch = [b for b, _ in schedule if b >= "12:00"]
final_answer(after_lunch)
