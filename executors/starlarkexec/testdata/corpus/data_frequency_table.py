responses = ["yes", "no", "yes", "maybe", "yes", "no", "yes", "maybe", "no", "yes"]
total = len(responses)
table = {}
for r in responses:
    table[r] = table.get(r, 0) + 1
print(f"{'answer':<8}{'count':>6}{'share':>8}")
for answer, count in sorted(table.items(), key=lambda kv: kv[1], reverse=True):
    print(f"{answer:<8}{count:>6}{count / total:>8.0%}")
final_answer(table)
