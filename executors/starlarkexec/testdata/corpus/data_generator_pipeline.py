log_lines = [
    "200 GET /index.html 512",
    "404 GET /missing 0",
    "200 POST /api/items 128",
    "500 GET /api/items 0",
    "200 GET /api/items 2048",
]

def parse(lines):
    for line in lines:
        status, method, path, size = line.split()
        yield {"status": int(status), "method": method, "path": path, "size": int(size)}

def only_ok(records):
    for r in records:
        if r["status"] == 200:
            yield r

ok = only_ok(parse(log_lines))
total_bytes = 0
for record in ok:
    print(record["method"], record["path"], record["size"])
    total_bytes += record["size"]
errors = sum(1 for r in parse(log_lines) if r["status"] >= 400)
print("errors:", errors)
final_answer(total_bytes)
