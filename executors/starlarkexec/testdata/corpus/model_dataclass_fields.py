from dataclasses import dataclass, field, asdict, astuple, replace, fields, FrozenInstanceError
@dataclass
class P:
    x: int
    y: int = 0
    tags: list = field(default_factory=list)
    secret: str = field(default="s", repr=False, compare=False)
    computed: int = field(init=False, default=0)
    def __post_init__(self):
        self.computed = self.x + self.y
p = P(1, 2)
print(p, p.computed)
print(p == P(1, 2, secret="other"))
print(asdict(p), astuple(p))
q = replace(p, y=5)
print(q, q.computed)
print([f.name for f in fields(P)])
@dataclass(frozen=True)
class F:
    a: int
    b: str = "b"
f = F(1)
try:
    f.a = 2
except FrozenInstanceError as e:
    print("frozen", e)
print(hash(f) == hash(F(1)), f)
@dataclass(order=True)
class O:
    k: int
    n: str = field(compare=False, default="")
print(sorted([O(3, "c"), O(1, "a"), O(2, "b")]))
print(O(1) < O(2), O(2) <= O(2))
@dataclass
class Nested:
    p: P
    items: list
print(asdict(Nested(P(1), [P(2), {"k": P(3)}])))
@dataclass
class Late:
    a: int
    b: int = field(init=False)
    def __post_init__(self):
        self.b = self.a * 10
print(Late(4), Late(4) == Late(4), fields(Late)[1].init)
try:
    replace(Late(1), b=3)
except ValueError as e:
    print("ValueError", e)
try:
    P()
except TypeError as e:
    print("TypeError", e)
final_answer(astuple(q))
