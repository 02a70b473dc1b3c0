names = ["Oslo", "Bergen", "Trondheim", "Stavanger"]
populations = [709_037, 291_940, 212_660, 146_011]
areas = [454.0, 465.3, 342.3, 262.5]
table = list(zip(names, populations, areas))
for name, pop, area in table:
    print(f"{name:<10} {pop:>8,} {pop / area:>8.1f}/km2")
densest = max(table, key=lambda row: row[1] / row[2])
names2, pops2, _ = zip(*table)
print(names2, sum(pops2))
final_answer(densest[0])
