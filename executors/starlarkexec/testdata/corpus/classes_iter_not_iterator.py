# __iter__ must return an iterator: an instance without __next__ (often
# the object itself) is a TypeError, never an endless search for one.
class C:
    def __iter__(self):
        return self
for f in (all, any, list, tuple, set, sorted, sum, iter):
    try:
        f(C())
    except TypeError as e:
        print(f.__name__, 'TypeError', e)
try:
    for x in C():
        pass
except TypeError as e:
    print('for TypeError', e)
class D:
    def __iter__(self):
        return E()
class E:
    def __iter__(self):
        return D()
try:
    list(D())
except TypeError as e:
    print('D TypeError', e)
class F:
    def __init__(self):
        self.n = 0
    def __iter__(self):
        return self
    def __next__(self):
        self.n += 1
        if self.n > 3:
            raise StopIteration
        return self.n
final_answer(list(F()))
