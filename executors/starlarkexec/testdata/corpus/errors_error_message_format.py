messages = []
tests = [
    lambda: int("12a"),
    lambda: float("abc"),
    lambda: [1, 2].index(5),
    lambda: "abc".index("z"),
    lambda: {"a": 1}["b"],
    lambda: (1, 2)[9],
    lambda: 10 % 0,
    lambda: "x" * "y",
]
for t in tests:
    try:
        t()
    except Exception as e:
        messages.append(f"{type(e).__name__}: {e}")
for m in messages:
    print(m)
final_answer(len(messages))
