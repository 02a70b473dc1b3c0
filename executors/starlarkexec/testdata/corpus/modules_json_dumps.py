import json

record = {"name": "Zoë", "tags": ["a", "b"], "score": 9.5, "active": True, "parent": None, "n": 3}
print(json.dumps(record))
print(json.dumps(record, ensure_ascii=False))
print(json.dumps(record, sort_keys=True, indent=2))
print(json.dumps(record, separators=(",", ":")))
print(json.dumps([1, (2, 3), {"k": []}], indent=4))
print(json.dumps({"x": 1.0, "y": 1e-7, "z": 10 ** 20, 3: "int key"}))
final_answer(json.dumps(record, sort_keys=True))
