class V:
    def __init__(self, x): self.x = x
    def __iadd__(self, o):
        self.x += o; return self
    def __isub__(self, o):
        self.x -= o; return self
    def __sub__(self, o): return V(self.x - o)
    def __mul__(self, o): return V(self.x * o)
    def __matmul__(self, o): return self.x * o.x
    def __pow__(self, o): return V(self.x ** o)
    def __rpow__(self, o): return o ** self.x
    def __divmod__(self, o): return (self.x // o, self.x % o)
    def __round__(self, n=None): return round(self.x / 3, n)
    def __abs__(self): return abs(self.x)
    def __index__(self): return self.x
    def __repr__(self): return f"V({self.x})"
v = V(5)
w = v
v += 3
print(v, w, v is w)
v -= 1
print(v, v is w)
v *= 2
print(v, v is w)
print(V(2) @ V(3))
m = V(3); m @= V(4)
print(m)
print(V(2) ** 3, 2 ** V(3))
p = V(2); p **= 4; print(p)
print(divmod(V(17), 5))
print(round(V(10)), round(V(10), 2), abs(V(-4)))
print([10, 20, 30][V(1).__index__()])
print(list(range(V(3))))
final_answer((v, m, p))
