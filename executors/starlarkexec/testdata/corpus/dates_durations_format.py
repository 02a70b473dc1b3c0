def format_seconds(total):
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = []
    if hours:
        parts.append(f"{hours}h")
    if minutes:
        parts.append(f"{minutes}m")
    if seconds or not parts:
        parts.append(f"{seconds}s")
    return " ".join(parts)

tasks = {"build": 754, "test": 3725, "deploy": 60, "noop": 0}
for name, secs in tasks.items():
    print(f"{name:<7}{format_seconds(secs)}")
final_answer(format_seconds(sum(tasks.values())))
