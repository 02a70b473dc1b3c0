from datetime import date

def age_on(birth, today):
    years = today.year - birth.year
    if (today.month, today.day) < (birth.month, birth.day):
        years -= 1
    return years

today = date(2024, 6, 1)
people = {"Ana": date(1990, 6, 2), "Bo": date(1985, 1, 30), "Cy": date(2000, 2, 29), "Di": date(2006, 6, 1)}
ages = {name: age_on(b, today) for name, b in people.items()}
print(ages)
adults = sorted(n for n, a in ages.items() if a >= 18)
print("adults:", adults)
final_answer(ages)
