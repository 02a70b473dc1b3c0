# Scoping and lookup corner cases of classes.


def describe():
    return "module describe"


class Config:
    base = 10
    double = base * 2
    names = ["a", "b"]
    upper = [n.upper() for n in names]

    def describe(self):
        return describe() + " via method"

    def uses_class_attr(self):
        return self.double + Config.base


c = Config()
print(Config.double, Config.upper, c.describe(), c.uses_class_attr())


def make_class(factor):
    class Scaler:
        def __init__(self, v):
            self.v = v

        def scaled(self):
            return self.v * factor

    return Scaler


S = make_class(3)
print(S(4).scaled(), type(S(1)).__name__)


class Base:
    greeting = "hello"

    def __init__(self, name):
        self.name = name

    def greet(self):
        return f"{self.greeting}, {self.name}"

    @property
    def shout(self):
        return self.greet().upper()

    def __str__(self):
        return f"<{type(self).__name__} {self.name}>"


class Middle(Base):
    greeting = "hi"

    def greet(self):
        return super().greet() + "!"


class Leaf(Middle):
    def __init__(self, name, extra):
        super().__init__(name)
        self.extra = extra

    def greet(self):
        return super().greet() + "?"


leaf = Leaf("zed", 1)
print(leaf.greet(), leaf.shout, str(leaf), Base.greet(leaf), leaf)
print(isinstance(leaf, (int, Base)), issubclass(Leaf, Middle), issubclass(Middle, Leaf))


class Shared:
    tags = []

    def add(self, t):
        self.tags.append(t)


s1, s2 = Shared(), Shared()
s1.add("x")
s2.add("y")
s1.tags = ["own"]
print(s1.tags, s2.tags, Shared.tags)


class OnlyRepr:
    def __repr__(self):
        return "OnlyRepr()"


print(OnlyRepr(), str(OnlyRepr()), [OnlyRepr()], f"{OnlyRepr()}")


class Money:
    def __init__(self, cents):
        self.cents = cents

    def __eq__(self, other):
        if not isinstance(other, Money):
            return NotImplemented
        return self.cents == other.cents

    def __lt__(self, other):
        return self.cents < other.cents

    def __le__(self, other):
        return self.cents <= other.cents

    def __repr__(self):
        return f"Money({self.cents})"

    def __format__(self, spec):
        return format(self.cents / 100, spec)


wallet = [Money(500), Money(150), Money(999)]
print(sorted(wallet), max(wallet), Money(1) == Money(1), Money(1) != Money(2), Money(2) <= Money(2))
print(f"{Money(1234):.2f}", "{:>8.1f}".format(Money(50)))


class ValidationError(ValueError):
    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field = field


try:
    raise ValidationError("email", "missing @")
except ValueError as e:
    print(e, e.field, e.args, repr(e))


class Util:
    @staticmethod
    def clamp(x, lo, hi):
        return max(lo, min(x, hi))

    @classmethod
    def name(cls):
        return cls.__name__


class SubUtil(Util):
    pass


print(Util.clamp(15, 0, 10), Util().clamp(-1, 0, 10), Util.name(), SubUtil.name(), SubUtil().name())


class Matrix:
    def __init__(self, rows):
        self.rows = rows

    def __getitem__(self, idx):
        r, c = idx
        return self.rows[r][c]

    def __setitem__(self, idx, v):
        r, c = idx
        self.rows[r][c] = v

    def __iter__(self):
        for row in self.rows:
            pass
        return iter(self.rows)

    def __len__(self):
        return len(self.rows)

    def __call__(self, scale):
        return Matrix([[x * scale for x in row] for row in self.rows])


m = Matrix([[1, 2], [3, 4]])
m[0, 1] = 20
print(m[0, 1], m[1, 0], len(m), [r for r in m], m(2).rows, callable(m))


class Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n + 1


print(list(Countdown(3)), sum(Countdown(4)), [x * 2 for x in Countdown(2)])
it = Countdown(2)
print(next(it), next(it), next(it, "done"))


class Faulty:
    def __iter__(self):
        return self

    def __next__(self):
        raise KeyError("broken iterator")


for attempt in [lambda: list(Faulty()), lambda: sum(Faulty()), lambda: [x for x in Faulty()], lambda: sorted(Faulty())]:
    try:
        attempt()
    except KeyError as e:
        print("propagated", e)
try:
    for item in Faulty():
        print("never")
except KeyError as e:
    print("loop propagated", e)
