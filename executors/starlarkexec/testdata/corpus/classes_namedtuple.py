from collections import namedtuple

City = namedtuple("City", ["name", "country", "population"])
cities = [City("Tokyo", "JP", 37_400_000), City("Delhi", "IN", 31_000_000), City("Lagos", "NG", 15_400_000)]
for c in cities:
    print(f"{c.name} ({c.country}): {c.population:,}")
biggest = max(cities, key=lambda c: c.population)
print(biggest)
print(biggest._asdict(), biggest[0], len(biggest))
moved = biggest._replace(population=38_000_000)
name, country, pop = moved
print(name, pop)
final_answer(moved)
