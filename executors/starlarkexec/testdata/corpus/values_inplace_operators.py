# Augmented assignment changes lists, sets and dicts in place, as Python does,
# and rebinds where Python rebinds (tuples, strings, numbers).
x = [1, 2]; y = x; x *= 2; print(y, x is y)
x = [1, 2]; y = x; x += (3,); print(y, x is y)
s = {1}; t = s; s |= {2}; print(t, s is t)
s = {1, 2, 3}; t = s; s &= {2, 3}; print(t, s is t)
s = {1, 2, 3}; t = s; s -= {2}; print(t, s is t)
s = {1, 2, 3}; t = s; s ^= {3, 4}; print(t, s is t)
d = {1: 2}; e = d; d |= {3: 4}; print(e, d is e)
u = (1,); v = u; u += (2,); print(v, u is v)
u = (1,); v = u; u *= 2; print(v, u is v)
st = 'a'; st2 = st; st *= 3; print(st2, st)
class L:
    def __init__(self): self.v = [1]
    def __imul__(self, n): self.v = self.v * n; return self
    def __ior__(self, o): self.v.append(o); return self
    def __isub__(self, o): self.v.remove(o); return self
l = L(); l2 = l; l *= 3; l |= 9; l -= 1; print(l2.v, l is l2)
class M:
    def __mul__(self, n): return 'mul'
m = M(); m *= 2; print(m)
g = {'k': [1]}; h = g['k']; g['k'] *= 2; print(h)
class O: pass
o = O(); o.a = [0]; r = o.a; o.a *= 3; print(r)
x = [1]
x *= 0
print(x, y)
try:
    t = ([1],); t[0] += [2]
except TypeError as e:
    print('TE', e, t)
final_answer(x)
