from datetime import datetime, timezone

epoch_values = [0, 1_700_000_000, 1_234_567_890]
for ts in epoch_values:
    dt = datetime.fromtimestamp(ts, tz=timezone.utc)
    print(ts, "->", dt.isoformat(), dt.year)
back = datetime(2024, 1, 1, tzinfo=timezone.utc).timestamp()
print("2024-01-01 as epoch:", back)
final_answer(int(back))
