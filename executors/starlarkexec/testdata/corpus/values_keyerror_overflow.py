# KeyError keeps its key (str(e) is its repr, as CPython writes it), and float
# arithmetic raises OverflowError where CPython does.
def show(label, f):
    try:
        print(label, f())
    except (KeyError, OverflowError, ZeroDivisionError) as e:
        print(label, type(e).__name__, str(e), repr(e), e.args)
show('tuple', lambda: {}[(1, 2)])
show('float', lambda: {1: 2}[1.5])
show('int', lambda: {'a': 1}[3])
show('str', lambda: {}['k'])
show('none', lambda: {}[None])
show('pop', lambda: {}.pop((3, 'x')))
show('remove', lambda: set().remove((1,)))
show('frozen', lambda: {}[frozenset()])
def delete():
    d = {}
    del d[(0, 0)]
show('del', delete)
big = 10 ** 400
show('pow', lambda: 1.2 ** 10 ** 1000)
show('rpow', lambda: big ** 0.5)
show('exp', lambda: 10.0 ** 400)
show('add', lambda: big + 1.0)
show('mul', lambda: 1.5 * big)
show('floordiv', lambda: big // 2.0)
show('mod', lambda: big % 2.0)
show('divmod', lambda: divmod(big, 2.0))
show('float', lambda: float(big))
show('sum', lambda: sum([1.0, big]))
show('truediv', lambda: big / 3)
show('exact', lambda: (big + 10) / 10 ** 399)
show('rounded', lambda: (10 ** 17 + 1) / 3)
show('zero', lambda: 1 / 0)
try:
    d = {}
    d[('a', 1)]
except KeyError as e:
    key = e.args[0]
final_answer(key)
