import itertools
a, b = itertools.tee(itertools.count())
print(next(a), next(a), next(a), next(b), list(itertools.islice(b, 5)), next(a))
x, y, z = itertools.tee([1, 2, 3], 3)
print(list(x), list(y), next(z), list(z))
def gen():
    for i in range(3):
        print("made", i)
        yield i
p, q = itertools.tee(gen())
print(next(p)); print(next(q)); print(list(q)); print(list(p))
print(itertools.tee([1], 0))
try:
    itertools.tee([1], -1)
except ValueError as e:
    print(e)
def bad():
    yield 1
    raise KeyError("k")
m, n = itertools.tee(bad())
print(next(m))
try:
    next(m)
except KeyError as e:
    print("KeyError", e)
print(next(n))
print(list(n))
print(list(itertools.repeat("a", times=2)), list(itertools.repeat(1, -3)), list(itertools.repeat(1, 0)), next(itertools.repeat(3)))
for f in (itertools.permutations, itertools.combinations, itertools.combinations_with_replacement):
    try:
        print(list(f([1, 2, 3], -2)))
    except ValueError as e:
        print(f.__name__ if False else "ValueError", e)
print(list(itertools.permutations([1, 2], 3)), list(itertools.combinations([1], 5)), list(itertools.permutations("abc", 2))[:3])
final_answer("done")
