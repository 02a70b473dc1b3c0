from datetime import datetime

fmt = "%H:%M"
alice = [("09:00", "10:30"), ("12:00", "13:00"), ("15:00", "17:00")]
bob = [("10:00", "11:00"), ("12:30", "14:00"), ("16:00", "18:00")]
def parse(slots):
    return [(datetime.strptime(a, fmt), datetime.strptime(b, fmt)) for a, b in slots]
overlaps = []
for a_start, a_end in parse(alice):
    for b_start, b_end in parse(bob):
        start, end = max(a_start, b_start), min(a_end, b_end)
        if start < end:
            overlaps.append((start.strftime(fmt), end.strftime(fmt), int((end - start).total_seconds() // 60)))
for o in overlaps:
    print(o)
final_answer(sum(o[2] for o in overlaps))
