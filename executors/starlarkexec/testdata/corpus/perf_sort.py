import random
nan = float('nan')
print(sorted([3, 1, 2]), sorted([3, 1, 2], reverse=True))
print(sorted([nan, 1.0]), sorted([1.0, nan, 0.5]), sorted([2.0, nan, 1.0, nan, 0.0, -1.0]))
print(sorted([3, nan, 1, 2.5, -0.0, 0, 0.0]), sorted([0, -0.0, 0.0, False], reverse=True))
random.seed(5)
xs = [random.choice([nan, 1.0, 2.0, 3.5, -1.0, 0.0]) for _ in range(40)]
print(sorted(xs))
print(sorted(xs, reverse=True))
words = "the quick brown fox jumps over the lazy dog Ünïcode é e z Z".split()
print(sorted(words), sorted(words, key=len), sorted(words, key=len, reverse=True))
print(sorted(words, key=str.lower, reverse=True))
big = [10**20, 5, -10**30, 2**63, -2**63, 2**63-1, 3]
print(sorted(big), sorted(big, reverse=True))
mixed = [2**53 + 1, 2.0**53, 2**53, 1.5, True, 2**60, 1]
print(sorted(mixed))
pairs = [(1, 'b'), (0, 'z'), (1, 'a'), (0, 'a')]
print(sorted(pairs), sorted(pairs, key=lambda p: p[0]), sorted(pairs, key=lambda p: p[0], reverse=True))
ys = [random.randrange(1000) for _ in range(3000)]
zs = sorted(ys)
print(zs == sorted(ys, key=lambda v: v), zs[:5], zs[-5:], sorted(ys, reverse=True)[:5])
fs = [random.random() for _ in range(3000)]
print(sorted(fs)[:3] == sorted(fs, key=float)[:3])
st = sorted(range(200), key=lambda v: v % 7)
print(st[:20])
st = sorted(range(200), key=lambda v: v % 7, reverse=True)
print(st[:20])
try:
    sorted([1, 'a', 2])
except TypeError as e:
    print('TypeError', e)
try:
    sorted(['a', 1, 2])
except TypeError as e:
    print('TypeError', e)
try:
    sorted([1, 2, None, 3])
except TypeError as e:
    print('TypeError', e)
l = [5, 3, 1]
l.sort()
print(l)
l = list(range(100, 0, -1))
l.sort(key=lambda v: -v)
print(l[:5])
print(sorted([[2, 1], [1, 5], [1, 2]]), sorted([(1, True), (1, 0)]))
print(sorted("Banana"), sorted({3: 'c', 1: 'a'}))
class C:
    def __init__(self, v): self.v = v
    def __lt__(self, o):
        print('cmp', self.v, o.v)
        return self.v < o.v
    def __repr__(self): return 'C(%d)' % self.v
print(sorted([C(3), C(1), C(2), C(5), C(4)]))
random.seed(11)
big = [random.randrange(-10**12, 10**12) for _ in range(20000)]
s1 = sorted(big)
print(all(s1[i] <= s1[i + 1] for i in range(len(s1) - 1)), s1[:3], s1[-3:])
recs = [(random.randrange(50), i) for i in range(5000)]
by = sorted(recs, key=lambda r: r[0])
print(all(by[i][0] < by[i + 1][0] or (by[i][0] == by[i + 1][0] and by[i][1] < by[i + 1][1]) for i in range(len(by) - 1)))
byr = sorted(recs, key=lambda r: r[0], reverse=True)
print(all(byr[i][0] > byr[i + 1][0] or (byr[i][0] == byr[i + 1][0] and byr[i][1] < byr[i + 1][1]) for i in range(len(byr) - 1)))
zs = [0.0, -0.0, 0, False, -0.0, 0.0]
print(sorted(zs), sorted(zs, reverse=True), sorted(zs, key=float))
strs = [''.join(random.choice('abcé€😀Z') for _ in range(random.randrange(4))) for _ in range(3000)]
ss = sorted(strs)
print(ss[:8], ss[-4:], sorted(strs, reverse=True)[:4])
hugeish = [2**64, -2**64, 2**63, 1.5, -1, 10**30, float('inf'), -float('inf')]
print(sorted(hugeish), sorted(hugeish, reverse=True))
print(sorted([3, 1, 2], key=lambda v: [1.5, 2, 0.5][v - 1]))
print(sorted(range(10), key=lambda v: (v % 3, -v)))
def digest(v):
    h = 0
    for c in repr(v):
        h = (h * 131 + ord(c)) % 1000000007
    return h
random.seed(7)
for n in (64, 300, 2000):
    for p in (0.02, 0.3):
        xs = [random.choice([nan, 1.0, 2.0, 3.5, -1.0, 0.0]) if random.random() < p else random.random() for _ in range(n)]
        xs[n // 3: n // 2] = sorted(xs[n // 3: n // 2])
        print(n, p, digest(sorted(xs)), digest(sorted(xs, reverse=True)), digest(sorted(xs, key=lambda v: -v)))
log = []
class W:
    def __init__(self, v, i):
        self.v, self.i = v, i
    def __lt__(self, o):
        log.append(self.i * 1000 + o.i)
        if self.v != self.v or o.v != o.v:
            return False
        return self.v < o.v
ws = [W(random.choice([nan, random.random()]), i) for i in range(500)]
print([w.i for w in sorted(ws)][:20], len(log), digest(log))
final_answer(sorted([5, 2, 9]))
