import json

payload = '{"users": [{"id": 1, "name": "Ann", "active": true, "tags": ["admin"]}, {"id": 2, "name": "Ben", "active": false, "tags": []}, {"id": 3, "name": "Cid", "active": true, "tags": ["dev", "ops"]}]}'
data = json.loads(payload)
active = [u for u in data["users"] if u["active"]]
print(f"{len(active)} active users")
for u in active:
    print(u["id"], u["name"], ",".join(u["tags"]) or "-")
all_tags = sorted({t for u in data["users"] for t in u["tags"]})
print(json.dumps({"tags": all_tags}))
final_answer([u["name"] for u in active])
