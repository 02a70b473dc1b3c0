class D:
    def __init__(self): self.d = {}
    def __setitem__(self, k, v): self.d[k] = v
    def __getitem__(self, k): return self.d[k]
    def __delitem__(self, k): print("del", k); del self.d[k]
    def __len__(self): return len(self.d)
    def __contains__(self, k): return k in self.d
    def __reversed__(self): return iter(["r"])
    def __bool__(self): return len(self.d) > 0
dd = D()
dd["a"] = 1
print(len(dd), "a" in dd, bool(dd))
del dd["a"]
print(len(dd), bool(dd))
print(list(dd.__reversed__()))
lst = [1, 2, 3]
del lst[0]
print(lst)
class H:
    def helper(self, x):
        self.x = x
    __init__ = helper
    def __str__(self): return "H" + str(self.x)
    __repr__ = __str__
print(H(3), [H(4)])
class E:
    def __eq__(self, o): return "yes"
if E() == E(): print("truthy")
print(E() != E())
class F:
    def __format__(self, spec): return "F<" + spec + ">"
    def __int__(self): return 7
    def __float__(self): return 2.5
print(f"{F():xyz}", format(F(), "q"))
class C:
    def __call__(self, a): return a * 2
print(C()(4))
class Hh:
    def __hash__(self): return 42
    def __eq__(self, o): return isinstance(o, Hh)
print(hash(Hh()), len({Hh(), Hh()}))
final_answer(len(dd))
