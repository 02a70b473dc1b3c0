raw = """name,age,city
Alice,34,Paris
Bob,28,Berlin
Chloe,45,Paris
Dmitri,39,Moscow
Eve,22,Berlin"""
lines = raw.strip().split("\n")
header = lines[0].split(",")
rows = [dict(zip(header, line.split(","))) for line in lines[1:]]
for r in rows:
    r["age"] = int(r["age"])
print(rows[0])
cities = {}
for r in rows:
    cities.setdefault(r["city"], []).append(r["name"])
print(cities)
mean_age = sum(r["age"] for r in rows) / len(rows)
print("Mean age:", mean_age)
older = [r["name"] for r in rows if r["age"] > mean_age]
final_answer(older)
