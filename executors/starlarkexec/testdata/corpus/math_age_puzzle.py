# "A father is 4 times as old as his son. In 20 years he will be twice as old. How old are they?"
solutions = []
for son in range(1, 60):
    father = 4 * son
    if father + 20 == 2 * (son + 20):
        solutions.append((son, father))
print("solutions:", solutions)
son, father = solutions[0]
print(f"son={son}, father={father}, in 20 years: {son + 20} and {father + 20}")
final_answer(father)
