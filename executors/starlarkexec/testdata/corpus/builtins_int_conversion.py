inputs = ["42", "-17", "  8  ", "0012", "1_000", "+5"]
print([int(x) for x in inputs])
print(int(3.9), int(-3.9), int(True), int("101", 2), int("ff", 16), int("Z", 36))
print(float("3.5"), float(2), str(12), str(1.50), str(-0.0), repr(1.10))
print(int(float("2.999")), round(float("2.5")), int(1e10), int(-1e3))
print(bool("False"), list("abc"), tuple([1, 2]), set("aab") == {"a", "b"}, dict([(1, 2)]))
final_answer([int(x) for x in inputs])
