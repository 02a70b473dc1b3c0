contacts = [
    {"email": "ann@example.com", "name": "Ann"},
    {"email": "BEN@example.com", "name": "Ben"},
    {"email": "ann@example.com ", "name": "Ann B."},
    {"email": "ben@example.com", "name": "Benjamin"},
    {"email": "cat@example.com", "name": "Cat"},
]
seen = {}
for c in contacts:
    key = c["email"].strip().lower()
    if key in seen:
        print(f"duplicate: {c['name']} ({key}) already seen as {seen[key]['name']}")
        continue
    seen[key] = c
unique = list(seen)
print(len(unique), "unique contacts")
final_answer(unique)
