x = ...
print(x, type(x).__name__ if False else "", x is ..., bool(...))
def stub(): ...
print(stub())
data = [10, 20, 30]
print(data[(i := 1)], i)
assert (n := len(data)) == 3, f"bad {n}"
print(n)
try:
    assert (m := 5) < 0, (msg := "m too big")
except AssertionError as e:
    print("assert", e, m, msg)
pairs = [(1, 2, 3), (4, 5), (6,)]
print([a for a, *b in pairs], [b for a, *b in pairs])
print({a: rest for a, *rest in ["xyz", "ab"]})
print([(h, t) for *h, t in ["abc", "de"]])
try:
    [a for a, *b, c in [(1,)]]
except ValueError as e:
    print("ValueError", e)
try:
    raise
except RuntimeError as e:
    print("RuntimeError", e)
a, b = 'xy'
print(a, b)
h, *t = "hello"
print(h, t)
try:
    a, b = 42
except TypeError as e:
    print("TypeError", e)
try:
    a, b = "xyz"
except ValueError as e:
    print("ValueError", e)
try:
    a, b = None
except TypeError as e:
    print("TypeError", e)
p, q = b"hi"
print(p, q)
final_answer((x, i, n, p, q))
