pairs = ["a:1", "b:2", "c:3:extra"]
parsed = {}
for p in pairs:
    key, value = p.split(":")
    parsed[key] = int(value)
    print("parsed", key)
final_answer(parsed)
