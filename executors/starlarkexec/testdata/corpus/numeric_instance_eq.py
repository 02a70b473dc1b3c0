# == with an instance whose class defines __eq__: its result as returned,
# the reflected __eq__ for a non-instance on the left, identity after
# NotImplemented.
class E:
    def __eq__(self, o):
        return 'yes'
class N:
    def __eq__(self, o):
        print('N.eq', type(o).__name__)
        return NotImplemented
class P:
    def __init__(s, v): s.v = v
    def __eq__(s, o):
        return isinstance(o, P) and s.v == o.v
    def __hash__(s): return hash(s.v)
print(E() == E(), E() == 1, 1 == E(), E() != E())
n = N()
print(n == n, N() == N(), n == 1)
x = P(1)
print(x == P(1), x == P(2), x == 1, [x] == [P(1)], x in [P(1)], P(1) != P(1))
print(bool(E() == 0))
final_answer(E() == E())
