import json

text = '{"items": [{"id": 1, "price": 2.50}, {"id": 2, "price": 10}], "meta": {"currency": "EUR", "ok": true, "note": null}}'
data = json.loads(text)
print(data)
print(type(data["items"][0]["price"]).__name__, type(data["items"][1]["price"]).__name__)
total = sum(i["price"] for i in data["items"])
data["meta"]["total"] = total
out = json.dumps(data, indent=1)
print(out)
print(json.loads(out) == data, json.loads("[1, 2.0, \"\\u00e9\"]"))
final_answer(total)
