def letter(score):
    if score >= 90:
        return "A"
    elif score >= 80:
        return "B"
    elif score >= 70:
        return "C"
    elif score >= 60:
        return "D"
    return "F"

students = {"Ava": 93, "Ben": 78, "Cal": 85, "Dee": 59, "Eli": 70, "Fay": 88}
report = {name: letter(score) for name, score in students.items()}
print(report)
distribution = {}
for g in report.values():
    distribution[g] = distribution.get(g, 0) + 1
print("distribution:", dict(sorted(distribution.items())))
passing = sorted(n for n, g in report.items() if g != "F")
final_answer(passing)
