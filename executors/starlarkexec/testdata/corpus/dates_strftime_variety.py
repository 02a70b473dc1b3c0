from datetime import datetime

moment = datetime(2023, 7, 4, 18, 5, 9, 123456)
formats = ["%Y-%m-%d", "%d.%m.%y", "%H:%M:%S.%f", "%I:%M %p", "%j", "%A %a %B %b", "%U %W", "%Y%m%dT%H%M%S", "%%literal"]
for fmt in formats:
    print(f"{fmt:>16} -> {moment.strftime(fmt)}")
print(moment.date(), moment.time(), moment.replace(year=2030, microsecond=0))
final_answer(moment.strftime("%c"))
