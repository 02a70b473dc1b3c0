# itertools' iterators that call user functions are lazy too: endless
# sources work, and the functions run as the items are consumed.
from itertools import accumulate, count, dropwhile, filterfalse, islice, starmap, takewhile
log = []
def small(n):
    log.append(n)
    return n < 4
t = takewhile(small, count(1))
print('made', log)
print(next(t), log)
print(list(t), log)
print(list(islice(dropwhile(lambda n: n < 5, count(1)), 3)))
print(next(filterfalse(lambda n: n % 7, count(1))))
print(list(filterfalse(None, [0, 1, '', 'x', None])))
print(list(islice(starmap(pow, zip(count(2), count(1))), 4)))
print(list(islice(accumulate(count(1)), 5)))
print(list(accumulate([1, 2, 3], lambda a, b: a * b, initial=10)))
print(list(accumulate([], initial=5)), list(accumulate([])))
def boom(x):
    if x == 3:
        raise ValueError('three')
    return True
got = []
try:
    for v in takewhile(boom, [1, 2, 3, 4]):
        got.append(v)
except ValueError as e:
    print('ValueError', e, got)
s = starmap(lambda a, b: log.append((a, b)), [(1, 2), (3, 4)])
log.clear()
next(s)
print(log)
print(type(t).__name__, type(s).__name__)
final_answer(list(islice(takewhile(lambda n: n < 100, accumulate(count(1))), 20)))
