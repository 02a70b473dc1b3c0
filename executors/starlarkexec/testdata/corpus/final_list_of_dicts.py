people = [{"name": "Ann", "age": 31}, {"name": "Bob", "age": 25}]
for p in people:
    p["adult"] = p["age"] >= 18
    print(p)
final_answer(sorted(people, key=lambda p: p["age"]))
