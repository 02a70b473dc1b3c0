from datetime import datetime

inputs = ["2024-02-30", "2024-13-01", "2024-01-15", "15-01-2024", "2023-02-28"]
valid, invalid = [], []
for s in inputs:
    try:
        valid.append(datetime.strptime(s, "%Y-%m-%d").date())
    except ValueError as e:
        invalid.append(s)
        print(f"{s}: {e}")
print(valid)
final_answer(invalid)
