name = "Ada"
score = 97.456
items = ["a", "b"]
print(f"Hello, {name}!")
print(f"{name} scored {score:.1f} points ({score / 100:.0%})")
print(f"{len(items)} items: {', '.join(items)}")
print(f"{{literal braces}} and {name.upper()}")
print(f"{2 + 3 * 4} {items[0]} {'nested' + 'concat'}")
final_answer(f"{name}:{score:.2f}")
