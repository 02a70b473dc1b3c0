def add(a, b=2, *args, scale=1, **kw):
    """Adds."""
    return (a + b + sum(args)) * scale + len(kw)
print(add(1), add(1, 2, 3, 4), add(1, scale=10), add(1, z=1, y=2))
def kwonly(*, a, b=1):
    return a - b
print(kwonly(a=5))
def posonly(a, /, b):
    return a * b
print(posonly(2, b=3))
args = [1, 2]
kw = {"scale": 3}
print(add(*args, **kw), add(*args, 5, *args), add(*"", 1))
print(add(*args, scale=2))
sq = lambda v, p=2: v ** p
print(sq(3), sq(2, 3))
def deco(fn):
    def wrapper(*a, **k):
        return "<" + str(fn(*a, **k)) + ">"
    return wrapper
def twice(fn):
    return lambda *a: fn(*a) * 2
@deco
@twice
def val(x: int) -> int:
    return x + 1
print(val(1))
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(15))
count = 0
def show():
    global count
    return count + 1
print(show())
def outer():
    v = 1
    def inner():
        return v + 1
    return inner()
print(outer())
def nothing():
    ...
print(nothing())
def ann(x: int = 5) -> str:
    y: int = x * 2
    z: str
    return str(y)
print(ann())
