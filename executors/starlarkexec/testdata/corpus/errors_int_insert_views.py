try:
    print('int(base=2)', repr(int(base=2)))
except Exception as e:
    print('int(base=2)', type(e).__name__, e)
try:
    print('int(5, 2)', repr(int(5, 2)))
except Exception as e:
    print('int(5, 2)', type(e).__name__, e)
try:
    print('int("12", base=None)', repr(int("12", base=None)))
except Exception as e:
    print('int("12", base=None)', type(e).__name__, e)
try:
    print('int(x="1")', repr(int(x="1")))
except Exception as e:
    print('int(x="1")', type(e).__name__, e)
try:
    print('int("1", 2, 3)', repr(int("1", 2, 3)))
except Exception as e:
    print('int("1", 2, 3)', type(e).__name__, e)
try:
    print('int("ff", base=16)', repr(int("ff", base=16)))
except Exception as e:
    print('int("ff", base=16)', type(e).__name__, e)
try:
    print('int()', repr(int()))
except Exception as e:
    print('int()', type(e).__name__, e)
try:
    print('[1].insert(1.5, 0)', repr([1].insert(1.5, 0)))
except Exception as e:
    print('[1].insert(1.5, 0)', type(e).__name__, e)
try:
    print('[1].insert(-10**20, 0)', repr([1].insert(-10**20, 0)))
except Exception as e:
    print('[1].insert(-10**20, 0)', type(e).__name__, e)
try:
    print('[1].insert(10**20, 0)', repr([1].insert(10**20, 0)))
except Exception as e:
    print('[1].insert(10**20, 0)', type(e).__name__, e)
try:
    print('[].insert(0)', repr([].insert(0)))
except Exception as e:
    print('[].insert(0)', type(e).__name__, e)
try:
    print('[].insert(i=0)', repr([].insert(i=0)))
except Exception as e:
    print('[].insert(i=0)', type(e).__name__, e)
x = [1, 2]
x.insert(True, 9); x.insert(10**9, 7); x.insert(-10**9, 0)
print(x)
import itertools
d = {1: "a", 2: "b"}
print(d.keys().isdisjoint([3, 4]), d.keys().isdisjoint({2}), d.items().isdisjoint([(1, "a")]), d.items().isdisjoint([(1, "b"), 5]), d.keys().isdisjoint(itertools.count()), d.keys().isdisjoint(""), {}.keys().isdisjoint([1]))
for f in (lambda: d.keys().isdisjoint([[1]]), lambda: d.values().isdisjoint([1]), lambda: d.keys().isdisjoint(5), lambda: d.items().isdisjoint([([1], 2)])):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
print(hasattr(d.keys(), "isdisjoint"), hasattr(d.values(), "isdisjoint"))
final_answer("done")
