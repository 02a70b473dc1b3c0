if True:
    def f(x):
        return x + 1
else:
    def f(x):
        return x - 1
print(f(1))
fns = []
for k in range(3):
    def g(v, k=k):
        return v * k
    fns.append(g)
print([h(2) for h in fns])
def outer(n):
    def inner(m=n * 2):
        return m
    return inner()
print(outer(4))
def kw(*, a, b=2):
    return (a, b)
print(kw(a=1), kw(b=3, a=0))
def va(a, *args):
    return (a, args)
print(va(1), va(1, 2, 3))
sep = "-"
print(*[1, 2, 3], sep=sep)
print(*"abc", sep=",")
def tally(*names, **counts):
    return len(names), sorted(counts.keys())
print(tally("a", "b", x=1, y=2))
print(tally(*["a"], **{"z": 1}))
nums = [3, 1, 2]
print(sorted(nums, key=lambda v: -v))
print([(lambda v: v ** 2)(n) for n in nums])
total = 0
for i, v in enumerate(nums):
    total += i * v
print(total)
matrix = [[1, 2], [3, 4]]
print([[row[i] for row in matrix] for i in range(2)])
d = {}
for word in "the cat the hat".split():
    d[word] = d.get(word, 0) + 1
print(d)
x = 5
def shadow():
    x = 10
    return x
print(shadow(), x)
total = sum([1, 2])
print(total)
