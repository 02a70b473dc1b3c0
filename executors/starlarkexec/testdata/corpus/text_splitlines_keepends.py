text = "alpha\nbeta\r\ngamma\rdelta\n\nepsilon"
print(text.splitlines())
print(text.splitlines(keepends=True))
print(text.split("\n"))
parts = "a,b,,c,".split(",")
print(parts, len(parts))
print("  lots   of   space  ".split())
print("k=v=w".rsplit("=", 1), "a-b-c".split("-", maxsplit=1))
final_answer(len(text.splitlines()))
