rows = [("apples", 3), ("pears", 5)]
lines = ["Shopping list:"]
for name, qty in rows:
    lines.append(f"- {qty} x {name}")
text = "\n".join(lines)
print(text)
final_answer(text)
