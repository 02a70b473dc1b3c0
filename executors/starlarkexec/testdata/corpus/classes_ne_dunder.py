# != calls __ne__ when a class defines it, else negates __eq__.
class Tagged:
    def __init__(self, v):
        self.v = v
    def __eq__(self, other):
        return isinstance(other, Tagged) and self.v == other.v
    def __ne__(self, other):
        return "ne(%r)" % (other,) if not isinstance(other, Tagged) else self.v != other.v
    def __repr__(self):
        return "Tagged(%r)" % self.v

class Shy:
    def __ne__(self, other):
        return NotImplemented
    def __repr__(self):
        return "Shy()"

class OnlyEq:
    def __init__(self, v):
        self.v = v
    def __eq__(self, other):
        if not isinstance(other, OnlyEq):
            return NotImplemented
        return self.v == other.v

print(Tagged(1) != Tagged(1), Tagged(1) != Tagged(2))
print(Tagged(1) != 5)
print(5 != Tagged(1))
print(Shy() != Tagged(3))
s = Shy()
print(s != s, Shy() != Shy())
print(OnlyEq(1) != OnlyEq(1), OnlyEq(1) != OnlyEq(2), OnlyEq(1) != 1)
print([Tagged(1)] != [Tagged(1)], [OnlyEq(2)] != [OnlyEq(3)])
final_answer(Tagged(4) != 7.5)
