logs = """2024-05-01 10:00:01 INFO  server started on port 8080
2024-05-01 10:00:05 WARN  cache miss for key=user:42
2024-05-01 10:01:12 ERROR timeout calling payments (3000 ms)
2024-05-01 10:02:00 INFO  request GET /health 200
2024-05-01 10:02:30 ERROR db connection refused
2024-05-01 10:03:00 INFO  request GET /orders 500"""
levels = {}
errors = []
for line in logs.splitlines():
    date, time, level, message = line.split(maxsplit=3)
    levels[level] = levels.get(level, 0) + 1
    if level == "ERROR":
        errors.append(f"{time} {message}")
print(levels)
print("\n".join(errors))
final_answer(errors)
