# map, filter, zip, enumerate and reversed are lazy iterators, as in Python:
# endless sources work with next(), islice and break, and side effects
# happen in the order the items are consumed.
from itertools import count, islice
print(next(filter(lambda n: n * n > 50, count(1))))
print(list(islice(map(lambda n: n * n, count(1)), 5)))
m = map(print, [1, 2])
print('made')
print(list(m))
print(list(m))
log = []
def noisy(x):
    log.append(x)
    return x * 10
it = map(noisy, [1, 2, 3])
print(next(it), log)
print(list(it), log)
for i, v in enumerate(map(noisy, count(5))):
    if i == 2:
        break
print(log)
f = filter(lambda s: s.startswith('a'), ['ab', 'b', 'ac'])
print(type(f).__name__, type(map(str, [])).__name__, next(f), list(f))
z = zip(count(), 'abc')
print(next(z), list(z))
print(list(zip(map(noisy, [7, 8, 9]), [0])), log[-2:])
r = reversed([1, 2, 3])
print(next(r), list(r))
e = enumerate(filter(None, [0, 1, '', 'x']), start=1)
print(list(e))
def gen():
    yield 1
    raise ValueError('from gen')
try:
    for v in map(lambda x: x + 1, gen()):
        print('got', v)
except ValueError as e:
    print('ValueError', e)
try:
    list(map(lambda x: 1 // x, [1, 0]))
except ZeroDivisionError as e:
    print('ZeroDivisionError', e)
squares = map(lambda x: x * x, range(4))
print(sum(squares), sum(squares))
print(3 in map(lambda x: x + 1, count()), max(map(len, ['a', 'bbb', 'cc'])))
final_answer(sorted(filter(lambda x: x % 3 == 0, range(10)), reverse=True))
