text = "Hello"
method = getattr(text, "lower")
print(method(), getattr(text, "upper")(), hasattr(text, "split"), hasattr(text, "nope"))
print(getattr(text, "missing", "fallback"))
ops = {"up": "upper", "low": "lower", "title": "title"}
print({k: getattr("mIxEd words", v)() for k, v in ops.items()})
try:
    getattr(text, "missing")
except AttributeError as e:
    print("AttributeError:", e)
final_answer(getattr([3, 1, 2], "count")(1))
