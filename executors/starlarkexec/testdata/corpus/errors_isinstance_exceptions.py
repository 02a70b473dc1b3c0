problems = []
checks = [lambda: 1 / 0, lambda: int("x"), lambda: {}["k"], lambda: [][1], lambda: None + 1, lambda: "ok"]
for check in checks:
    try:
        value = check()
        print("fine:", value)
    except Exception as e:
        arithmetic = isinstance(e, ArithmeticError)
        lookup = isinstance(e, LookupError)
        problems.append((type(e).__name__, arithmetic, lookup))
for p in problems:
    print(p)
final_answer(problems)
