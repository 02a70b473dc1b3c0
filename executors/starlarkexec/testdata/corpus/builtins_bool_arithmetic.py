flags = [True, False, True, True]
print(sum(flags), True + 1, True * 3.5, False - True, True / 2, True // 1)
print(int(True), float(False), str(True), bool(0), bool("0"), bool([]), bool(None), bool(0.0), bool(" "))
print(True == 1, False == 0, (True == 1) is True, max(True, 0), -True)
print(True and "yes", False or "fallback", 0 or None, "" and "x", not None)
final_answer(sum(flags) / len(flags))
