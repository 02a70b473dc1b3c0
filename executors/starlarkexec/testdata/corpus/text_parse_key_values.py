config = """
# database settings
host = db.internal
port = 5432
user=admin
timeout = 30s
debug = true
"""
settings = {}
for line in config.strip().splitlines():
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    key, value = (part.strip() for part in line.split("=", 1))
    if value.isdigit():
        value = int(value)
    elif value in ("true", "false"):
        value = value == "true"
    settings[key] = value
print(settings)
final_answer(settings)
