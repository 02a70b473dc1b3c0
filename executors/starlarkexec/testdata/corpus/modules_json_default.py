import json
from datetime import date

def encode(obj):
    if isinstance(obj, date):
        return obj.isoformat()
    if isinstance(obj, set):
        return sorted(obj)
    raise TypeError(f"cannot encode {type(obj).__name__}")

payload = {"when": date(2024, 5, 6), "ids": {3, 1, 2}, "label": "weekly"}
print(json.dumps(payload, default=encode))
print(json.dumps(payload, default=str, sort_keys=True))
try:
    json.dumps({"bad": object()})
except TypeError as e:
    print("TypeError", "is not JSON serializable" in str(e))
final_answer(json.loads(json.dumps(payload, default=encode)))
