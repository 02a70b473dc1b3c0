replacements = {"colour": "color", "favourite": "favorite", "organise": "organize", "centre": "center"}
text = "My favourite colour is blue. Let us organise the centre of the room by colour."
count = 0
for uk, us in replacements.items():
    n = text.count(uk)
    if n:
        print(f"{uk} -> {us} ({n}x)")
        count += n
        text = text.replace(uk, us)
print(text)
final_answer(count)
