# Classes: __init__, methods, class attributes, inheritance, super(),
# properties, static and class methods, special methods honoured by
# builtins, dataclasses.
from dataclasses import dataclass, field


def helper():
    return "global helper"


class Animal:
    kingdom = "animalia"
    count = 0

    def __init__(self, name, sound="..."):
        self.name = name
        self.sound = sound
        Animal.count += 1

    def speak(self):
        return f"{self.name} says {self.sound}"

    def helper(self):
        return helper()

    def __repr__(self):
        return f"Animal({self.name!r})"


class Dog(Animal):
    def __init__(self, name):
        super().__init__(name, "woof")
        self.tricks = []

    def speak(self):
        return super().speak() + "!"

    def add_trick(self, trick):
        self.tricks.append(trick)
        return self


a = Animal("cat", "meow")
d = Dog("rex").add_trick("sit").add_trick("roll")
print(a.speak(), d.speak(), d.tricks)
print(a, repr(d), str(d), [a, d])
print(Animal.count, a.kingdom, Dog.kingdom, d.helper())
print(isinstance(d, Animal), isinstance(a, Dog), issubclass(Dog, Animal), type(d) == Dog, type(d).__name__)
print(type(a), Dog)


class Temperature:
    def __init__(self, celsius):
        self._c = celsius

    @property
    def fahrenheit(self):
        return self._c * 9 / 5 + 32

    @property
    def celsius(self):
        return self._c

    @celsius.setter
    def celsius(self, v):
        if v < -273.15:
            raise ValueError("below absolute zero")
        self._c = v

    @staticmethod
    def boiling():
        return 100

    @classmethod
    def from_f(cls, f):
        return cls((f - 32) * 5 / 9)


t = Temperature(25)
print(t.fahrenheit, t.celsius)
t.celsius = 30
print(t.celsius, Temperature.boiling(), t.boiling(), Temperature.from_f(212).celsius)
try:
    t.celsius = -300
except ValueError as e:
    print("error:", e)


class Vector:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, other):
        return Vector(self.x + other.x, self.y + other.y)

    def __sub__(self, other):
        return Vector(self.x - other.x, self.y - other.y)

    def __mul__(self, k):
        return Vector(self.x * k, self.y * k)

    def __rmul__(self, k):
        return self * k

    def __eq__(self, other):
        return isinstance(other, Vector) and self.x == other.x and self.y == other.y

    def __hash__(self):
        return hash((self.x, self.y))

    def __len__(self):
        return 2

    def __iter__(self):
        return iter([self.x, self.y])

    def __getitem__(self, i):
        return [self.x, self.y][i]

    def __str__(self):
        return f"({self.x}, {self.y})"

    def __repr__(self):
        return f"Vector({self.x}, {self.y})"

    def __bool__(self):
        return self.x != 0 or self.y != 0

    def __lt__(self, other):
        return (self.x, self.y) < (other.x, other.y)


v = Vector(1, 2)
w = Vector(3, 4)
print(v + w, w - v, v * 3, 2 * v, v == Vector(1, 2), v != w, v == 5)
print(len(v), list(v), v[1], sum(v), str(v), repr(v), f"{v}", f"{v!r}")
print(bool(Vector(0, 0)), bool(v), "yes" if v else "no")
print(sorted([w, v, Vector(0, 9)]), min(w, v), max([v, w]))
print({v: "a", w: "b"}, v in {v}, len({v, Vector(1, 2), w}), {v: 1}[Vector(1, 2)])
x, y = v
print(x, y)


class Stack:
    def __init__(self):
        self.items = []

    def push(self, x):
        self.items.append(x)

    def pop(self):
        if not self.items:
            raise IndexError("pop from empty stack")
        return self.items.pop()

    def __len__(self):
        return len(self.items)

    def __contains__(self, x):
        return x in self.items


s = Stack()
s.push(1)
s.push(2)
print(len(s), 2 in s, 5 in s, s.pop(), len(s))
s.pop()
try:
    s.pop()
except IndexError as e:
    print("empty:", e)
print(bool(s))


@dataclass
class Point:
    x: int
    y: int = 0


@dataclass(order=True)
class Item:
    priority: int
    name: str = field(default="")
    tags: list = field(default_factory=list)


p = Point(1, 2)
print(p, Point(3), p == Point(1, 2), p == Point(2, 1), p.x)
items = [Item(3, "c"), Item(1, "a"), Item(2, "b", ["x"])]
print(sorted(items))
print(items[0] < items[1], Item(1).tags is not Item(1).tags)


@dataclass(frozen=True)
class Config:
    host: str
    port: int = 8080


c = Config("localhost")
print(c, hash(c) == hash(Config("localhost")), {c: 1}[Config("localhost")])
try:
    c.port = 1
except AttributeError as e:
    print(type(e).__name__, e)


class Counter:
    instances = 0

    def __init__(self):
        Counter.instances += 1
        self.n = 0

    def incr(self, by=1):
        self.n += by
        return self.n


counters = [Counter() for _ in range(3)]
for i, ctr in enumerate(counters):
    for _ in range(i + 1):
        ctr.incr()
print([ctr.n for ctr in counters], Counter.instances)
print(getattr(counters[0], "n"), hasattr(counters[0], "missing"), getattr(counters[0], "missing", "dflt"))
setattr(counters[0], "n", 42)
print(counters[0].n)


class Shape:
    def area(self):
        raise NotImplementedError("subclasses must implement area")

    def describe(self):
        return f"{type(self).__name__} with area {self.area():.2f}"


class Circle(Shape):
    def __init__(self, r):
        self.r = r

    def area(self):
        return 3.14159 * self.r ** 2


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side ** 2


for shape in [Circle(1), Square(2)]:
    print(shape.describe())
try:
    Shape().describe()
except NotImplementedError as e:
    print("abstract:", e)

try:
    Point()
except TypeError as e:
    print("TypeError:", e)

try:
    a.missing
except AttributeError as e:
    print(e)


class Node:
    def __init__(self, value, children=None):
        self.value = value
        self.children = children or []

    def total(self):
        return self.value + sum(c.total() for c in self.children)


tree = Node(1, [Node(2, [Node(4)]), Node(3)])
print(tree.total())
