import functools
def f(a, b=2):
    "Add things."
    return a + b
def nodoc():
    return 1
class C:
    """A class."""
    def m(self):
        "method doc"
        return 1
    @property
    def p(self):
        return 5
class D(C):
    pass
def deco(fn):
    @functools.wraps(fn)
    def wrapper(*a, **k):
        "wrapper doc"
        return fn(*a, **k)
    return wrapper
@deco
def g(x):
    "g doc"
    return x * 2
class E:
    @deco
    def meth(self, y):
        "meth doc"
        return y + 1
print(f.__name__, f.__doc__, nodoc.__doc__, f.__module__)
print(C.__doc__, D.__doc__, C.m.__doc__, C().m.__doc__, C().__doc__, C.__module__, C().__module__)
print(g.__name__, g.__doc__, g.__wrapped__ is not None, g(4), g.__wrapped__(5), g.__module__)
print(E().meth(3), E.meth.__name__, E().meth.__name__, E.meth.__doc__)
print(C().__class__.__name__, (1).__class__, "s".__class__.__name__, C.__class__, type(C()).__name__, [].__class__ is list)
print(int.__module__, type(1.5).__module__, ValueError.__module__, ValueError("x").__class__.__name__)
def plain(fn):
    def inner():
        return fn()
    return functools.update_wrapper(inner, fn)
h = plain(nodoc)
print(h.__name__, h.__doc__, h(), callable(h))
final_answer("done")
