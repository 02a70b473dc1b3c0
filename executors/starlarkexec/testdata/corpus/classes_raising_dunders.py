# An exception raised by __bool__, __len__ or __eq__ propagates, as in Python.
class B:
    def __init__(self, ok=False): self.ok = ok
    def __bool__(self):
        if self.ok:
            return True
        raise ValueError('bool failed')
class L:
    def __len__(self): raise RuntimeError('len failed')
class E:
    def __eq__(self, other): raise ValueError('eq failed')
    __hash__ = None
class N:
    def __bool__(self): return 1
def attempt(label, f):
    try:
        print(label, f())
    except Exception as e:
        print(label, type(e).__name__, e)
attempt('all', lambda: all([B()]))
attempt('any', lambda: any([B()]))
attempt('filter', lambda: list(filter(None, [B()])))
attempt('filter-f', lambda: list(filter(lambda x: x, [B()])))
attempt('bool', lambda: bool(B()))
attempt('bool-len', lambda: bool(L()))
attempt('bool-int', lambda: bool(N()))
attempt('not', lambda: not B())
attempt('if', lambda: 'yes' if B() else 'no')
attempt('and', lambda: B() and 1)
attempt('or', lambda: type(B(True) or 1).__name__)
attempt('in-list', lambda: 1 in [E()])
attempt('in-list2', lambda: E() in [1])
attempt('in-tuple', lambda: E() in (1, 2))
attempt('list-eq', lambda: [E()] == [1])
attempt('eq', lambda: E() == 1)
attempt('index', lambda: [1, 2].index(E()))
attempt('count', lambda: [1].count(E()))
e = E()
attempt('identity', lambda: e in [e])
attempt('comp', lambda: [x for x in [B()] if x])
def loop():
    n = 0
    while B():
        n += 1
    return n
attempt('while', loop)
def cond():
    if L():
        return 'yes'
    return 'no'
attempt('if-len', cond)
final_answer('done')
