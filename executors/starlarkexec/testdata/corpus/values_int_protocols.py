# int(), float() and indexing take IntEnum members and objects with
# __int__, __float__ or __index__; deques compare as lists.
import collections
import enum
import operator


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


print(int(Level.LOW), float(Level.HIGH), list(range(Level.HIGH)), [10, 20, 30][Level.HIGH], hex(Level.HIGH), "abc"[Level.LOW])


class Money:
    def __int__(self):
        return 5

    def __float__(self):
        return 2.5


class Slot:
    def __index__(self):
        return 1


print(int(Money()), float(Money()), int(Slot()), float(Slot()), [7, 8, 9][Slot()], (7, 8)[Slot()], bin(Slot()))
print(operator.getitem([5, 6], Slot()), operator.itemgetter(Slot())("xy"))


class Bad:
    def __int__(self):
        return "x"

    def __float__(self):
        return 1


class Broken:
    def __index__(self):
        raise KeyError("no index")


for f in [lambda: int(Bad()), lambda: float(Bad()), lambda: [1][Broken()], lambda: int(object())]:
    try:
        print(f())
    except (TypeError, KeyError) as e:
        print(type(e).__name__, e)

print(collections.deque([1, 2]) == collections.deque([1, 2]), collections.deque([1]) < collections.deque([2]), collections.deque([1]) != collections.deque([1, 2]))
final_answer([int(Level.HIGH), float(Money())])
