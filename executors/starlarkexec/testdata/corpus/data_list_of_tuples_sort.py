athletes = [("Kim", 9.58, "JAM"), ("Lee", 9.69, "USA"), ("Ito", 9.58, "JPN"), ("Ray", 9.72, "USA"), ("Sol", 9.63, "GBR")]
ranked = sorted(athletes, key=lambda a: (a[1], a[0]))
for place, (name, time, country) in enumerate(ranked, start=1):
    print(f"{place}. {name} ({country}) {time}s")
usa = [a[0] for a in ranked if a[2] == "USA"]
print("USA athletes:", usa)
final_answer(ranked[0][0])
