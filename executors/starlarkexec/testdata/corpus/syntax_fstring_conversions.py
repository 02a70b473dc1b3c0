name = "O'Brien"
path = "C:\\temp"
word = "café"
print(f"{name!r} {name!s} {name}")
print(f"{path!r} {path}")
print(f"{word!a} {word!r}")
print(f"{[1, 'two']!s} {None!r} {3.0!r}")
print(f"{name!r:>12}|{word!a:<10}|")
final_answer(f"{name!r}")
