vals = iter([3, 1, 4, 0, 5])
def nxt():
    return next(vals)
print(list(iter(nxt, 0)))
n = [0]
def count():
    n[0] += 1
    return n[0]
print(list(zip(range(3), iter(count, None))))
it = iter(count, 7)
print(next(it), next(it), list(it), list(it))
def stopper():
    raise StopIteration
print(list(iter(stopper, 1)))
def boom():
    raise KeyError("k")
for f in (lambda: list(iter(boom, 1)), lambda: iter(5, 0), lambda: iter(), lambda: iter(1, 2, 3), lambda: iter([1], sentinel=2)):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
import functools
data = iter(["a", "b", "", "c"])
print([x for x in iter(functools.partial(next, data), "")])
print(type(iter(count, 0)).__name__)
final_answer("done")
