s = "  Hello, World  "
print(repr(s.strip()), repr(s.lstrip()), repr(s.rstrip()))
t = s.strip()
print(t.lower(), t.upper(), t.swapcase(), t.title(), t.capitalize(), t.casefold())
print(t.replace("l", "L"), t.replace("l", "L", 1), t.count("l"), t.find("o"), t.rfind("o"), t.find("z"))
print(t.startswith("Hell"), t.endswith("!"), t.split(", "), t.partition(", "), t.rpartition("o"))
print("-".join(["a", "b"]), t.center(20, "*"), t.ljust(15, "."), t.rjust(15), "42".zfill(5))
print(t.removeprefix("Hello, "), t.removesuffix("World"), t.index("W"), t.rindex("l"))
final_answer(t.split(", ")[1].lower())
