package builtins_test

import (
	"testing"

	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
)

func TestEnum(t *testing.T) { builtinstest.RunCases(t, enumCases) }

// enumCases check Enum, IntEnum, Flag and IntFlag members: reprs and
// str as CPython 3.11 prints them, auto(), aliases, int arithmetic,
// flag combinations and their names, errors and @unique.
var enumCases = []builtinstest.Case{
	{Name: "enum", Src: `from enum import Enum, IntEnum, Flag, IntFlag, auto, unique
class Color(Enum):
    RED = auto()
    GREEN = auto()
    BLUE = "b"
    CRIMSON = 1
    def describe(self):
        return self.name.lower() + "!"
    @property
    def pretty(self):
        return self.name.title()
print(repr(Color.RED), str(Color.RED), f"{Color.RED}", f"{Color.RED:>12}|", Color.RED.describe(), Color.BLUE.value, Color.CRIMSON is Color.RED, Color.GREEN.pretty)
print(list(Color), len(Color), Color(1), Color["BLUE"], Color.RED in Color, type(Color.RED), isinstance(Color.RED, Color))
class P(IntEnum):
    LOW = 1
    HIGH = 10
    ALIAS = 1
print(repr(P.HIGH), str(P.HIGH), f"{P.HIGH}", f"{P.HIGH:03}", P.HIGH + 1, 1 + P.HIGH, P.HIGH * 2, -P.HIGH, P.ALIAS, list(P), len(P), P(10), P["LOW"])
print(bool(P.LOW), P.HIGH / 4, P.HIGH // 3, P.HIGH % 3, sorted([P.HIGH, P.LOW]), max(P), sum(P), P.HIGH > P.LOW, P.LOW == P.ALIAS)
class Perm(Flag):
    R = 4
    W = 2
    X = 1
    RW = 6
print(repr(Perm.R | Perm.W), str(Perm.R | Perm.W), repr(~Perm.R), repr(Perm(0)), str(Perm(0)), list(Perm), list(Perm.R | Perm.X), Perm.R in (Perm.R | Perm.W), bool(Perm(0)), len(Perm.R | Perm.X))
print(repr(Perm(7)), (Perm.R | Perm.W).name, Perm(0).name, repr(Perm.R & Perm.W), repr(Perm.R ^ Perm.R), (Perm.R | Perm.W) is Perm.RW, repr(Perm(5)), Perm(5) is (Perm.R | Perm.X))
class F(Flag):
    A = auto()
    B = auto()
    C = auto()
print(list(F), repr(F.A | F.C), str(F.A | F.C), repr(F(7)), format(F.A))
class IP(IntFlag):
    R = 4
    W = 2
    X = 1
print(repr(IP.R | IP.W), str(IP.R | IP.W), IP.R | 8, repr(IP.R | 8), repr(IP(0)), IP.R + 1, f"{IP.R | IP.W}", repr(~IP.R))
class E(Enum):
    A = 1
    B = 5
    C = auto()
print(repr(E.C))
for bad in [lambda: Color(9), lambda: Color["NOPE"], lambda: Color.RED < Color.GREEN, lambda: P(3), lambda: Perm(8), lambda: F.A | 1, lambda: Perm.R + 1]:
    try:
        print(repr(bad()))
    except Exception as e:
        print(type(e).__name__, e)
try:
    Color.RED.value = 3
except AttributeError as e:
    print("AttributeError", e)
try:
    @unique
    class U(Enum):
        A = 1
        B = 1
        C = 2
        D = 2
except ValueError as e:
    print("ValueError", e)
print([m.name for m in Perm])
`, Want: "<Color.RED: 1> Color.RED Color.RED    Color.RED| red! b True Green\n[<Color.RED: 1>, <Color.GREEN: 2>, <Color.BLUE: 'b'>] 3 Color.RED Color.BLUE True <enum 'Color'> True\n<P.HIGH: 10> 10 10 010 11 11 20 -10 1 [<P.LOW: 1>, <P.HIGH: 10>] 2 10 1\nTrue 2.5 3 1 [<P.LOW: 1>, <P.HIGH: 10>] 10 11 True True\n<Perm.RW: 6> Perm.RW <Perm.W|X: 3> <Perm: 0> Perm(0) [<Perm.R: 4>, <Perm.W: 2>, <Perm.X: 1>] [<Perm.R: 4>, <Perm.X: 1>] True False 2\n<Perm.R|W|X: 7> RW None <Perm: 0> <Perm: 0> True <Perm.R|X: 5> True\n[<F.A: 1>, <F.B: 2>, <F.C: 4>] <F.A|C: 5> F.A|C <F.A|B|C: 7> F.A\n<IP.R|W: 6> 6 12 <IP.R|8: 12> <IP: 0> 5 6 <IP.W|X: 3>\n<E.C: 6>\nValueError 9 is not a valid Color\nKeyError 'NOPE'\nTypeError '<' not supported between instances of 'Color' and 'Color'\nValueError 3 is not a valid P\nValueError <flag 'Perm'> invalid value 8\n    given 0b0 1000\n  allowed 0b0 0111\nTypeError unsupported operand type(s) for |: 'F' and 'int'\nTypeError unsupported operand type(s) for +: 'Perm' and 'int'\nAttributeError <enum 'Enum'> cannot set attribute 'value'\nValueError duplicate values found in <enum 'U'>: B -> A, D -> C\n['R', 'W', 'X']\n"},
}
