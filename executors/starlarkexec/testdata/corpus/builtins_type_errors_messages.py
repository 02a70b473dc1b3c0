outcomes = []
for expr in [lambda: "a" + 1, lambda: 1 + "a", lambda: [1] + (2,), lambda: None < 1, lambda: len(5), lambda: int(None), lambda: "abc"[1.5]]:
    try:
        expr()
    except TypeError as e:
        outcomes.append(str(e))
for o in outcomes:
    print(o)
final_answer(len(outcomes))
