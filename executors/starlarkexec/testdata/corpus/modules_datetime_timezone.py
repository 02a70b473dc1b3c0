from datetime import datetime, timedelta, timezone

utc = timezone.utc
cet = timezone(timedelta(hours=1), "CET")
meeting = datetime(2024, 1, 10, 15, 0, tzinfo=utc)
print(meeting, meeting.astimezone(cet), meeting.tzname(), meeting.utcoffset())
local = datetime(2024, 1, 10, 16, 0, tzinfo=cet)
print(meeting == local, local - meeting, local.isoformat())
print(datetime.fromisoformat("2024-06-01T12:00:00+02:00").astimezone(utc))
final_answer(meeting.astimezone(cet).strftime("%H:%M %Z"))
