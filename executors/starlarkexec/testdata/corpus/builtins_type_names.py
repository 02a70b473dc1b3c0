samples = [1, 2.0, "s", [1], (1,), {1: 2}, {1}, None, True, range(3), len, print]
for s in samples:
    print(type(s), type(s).__name__)
print(type(1) == int, type(True) is bool, type("") is str)
print(int, str, float, list, dict, type(None))
final_answer([type(s).__name__ for s in samples[:8]])
