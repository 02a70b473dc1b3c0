# A dict literal may repeat a key: the last value wins, at the place of
# the key's first appearance, with keys and values evaluated in order.
d = {"a": 1, "b": 5, "a": 2}
print(d, list(d))

name = "x"
other = "x"
print({name: 1, other: 2, "y": 3})

def f(x):
    print("eval", x)
    return x

print({f("a"): f(1), f("b"): f(2), f("a"): f(3)})
print({1: "one", 2: "two", 1: "uno"}, {b"k": 1, "k": 2, b"k": 3})
print({(1, 2): "t", (1, 2): "u"}, {-1: "m", -1: "n"})
try:
    print({[1]: 2, "a": 4})
except TypeError as e:
    print("TypeError:", e)
final_answer(d)
