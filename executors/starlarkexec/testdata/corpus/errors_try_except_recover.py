raw_values = ["10", "20", "thirty", "40", "", "5.5"]
parsed, failures = [], []
for v in raw_values:
    try:
        parsed.append(int(v))
    except ValueError as e:
        failures.append(v)
        print(f"skipping {v!r}: {e}")
print("parsed:", parsed)
final_answer({"sum": sum(parsed), "failed": failures})
