from abc import ABC, abstractmethod
from contextlib import contextmanager, suppress, nullcontext
import contextlib


class Shape(ABC):
    @abstractmethod
    def area(self):
        ...

    @abstractmethod
    def name(self):
        pass

    def describe(self):
        return f"{self.name()} of area {self.area()}"


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side ** 2

    def name(self):
        return "square"


class Half(Shape):
    def area(self):
        return 0


for cls in (Shape, Half):
    try:
        cls()
    except TypeError as e:
        print("TypeError:", e)
print(Square(3).describe(), isinstance(Square(2), Shape))


class Plain:
    @abstractmethod
    def f(self):
        return "not enforced without ABC"


print(Plain().f())

log = []


@contextmanager
def tag(name):
    log.append("<" + name + ">")
    try:
        yield name.upper()
    finally:
        log.append("</" + name + ">")


with tag("a") as t:
    log.append(t)
print(log)

log.clear()
try:
    with tag("b"):
        raise ValueError("inside")
except ValueError as e:
    log.append("caught " + str(e))
print(log)


@contextlib.contextmanager
def swallow():
    try:
        yield
    except KeyError:
        log.append("swallowed")


log.clear()
with swallow():
    {}["missing"]
log.append("after")
print(log)


@contextmanager
def simple():
    log.append("enter")
    yield 1
    log.append("exit")


log.clear()
with simple() as one, nullcontext(5) as five:
    log.append(one + five)
print(log)

with suppress(ZeroDivisionError, KeyError):
    1 / 0
print("suppressed")
try:
    with suppress(KeyError):
        [][1]
except IndexError:
    print("IndexError passes through")
with nullcontext() as nothing:
    print(nothing)
