data = [1, 2.5, "three", None, True, [4], (5,), {"six": 6}]
print(str(data))
print(", ".join(str(x) for x in data))
print(", ".join(repr(x) for x in data))
print(str(1/3), repr(1/3), str(10 ** 16 + 0.0), str(1e-4), str(123456789012345678))
print(ascii("café ✓"), repr("tab\tnew\nline"), str(b"x"))
final_answer(str(data))
