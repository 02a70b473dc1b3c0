a = [1, 2]
b = (3, 4)
merged = [*a, *b, 5]
print(merged)
print((*a, *"xy"), {*a, *b})
defaults = {"color": "red", "size": "M"}
overrides = {"size": "L", "qty": 2}
combined = {**defaults, **overrides, "final": True}
print(combined)
def f(*args, **kwargs):
    return args, kwargs
print(f(*a, *b, 9, **defaults, extra=1))
print(*merged, sep="-")
final_answer(combined)
