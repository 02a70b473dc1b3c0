print(hash(1) == hash(1.0), hash("abc") == hash("abc"), hash((1, 2)) == hash((1, 2)))
try:
    hash([1, 2])
except TypeError as e:
    print("TypeError:", e)
print(callable(len), callable("x"), callable(lambda: 0), callable(int))
it = iter([10, 20, 30])
print(next(it), next(it), next(it), next(it, "done"))
chars = iter("ab")
print(list(chars), list(chars))
final_answer([callable(x) for x in (print, 1, str.upper)])
