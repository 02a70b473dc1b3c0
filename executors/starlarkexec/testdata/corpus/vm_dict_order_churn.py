# Dict and set order through growth, deletions and reinsertions; method
# calls on built-in values; ints at the int64 boundary as keys.
d = {}
for i in range(200):
    d[i] = i * i
for i in range(0, 200, 3):
    del d[i]
for i in range(0, 60, 2):
    d[i] = -i
keys = list(d)
print(len(d), keys[:5], keys[-5:])
print(sum(d.values()), d.get(3), d.get(4), d.get(999, "none"))

e = {}
for k in keys:
    e[k] = d[k]
print(e == d, list(e) == list(d))

q = {}
for i in range(50):
    q[i] = i
    if i % 2:
        q.pop(i - 1)
print(list(q)[:6], len(q))
while q:
    k = next(iter(q))
    del q[k]
q["x"] = 1
print(q)

s = set(range(40))
for i in range(0, 40, 4):
    s.discard(i)
s.add(100)
print(len(s), sorted(s)[:6], 100 in s, 4 in s)

parts = []
for word in "the quick brown fox".split():
    parts.append(word.upper())
print(",".join(parts), "a-b".replace("-", "+"))
try:
    parts.nosuch(print("not printed"))
except AttributeError as ex:
    print("AttributeError")

big = 2 ** 63
m = {-big: "min", big - 1: "max", -(big - 1): "min+1"}
print(m[-(2 ** 62) * 2], m[(2 ** 62 - 1) * 2 + 1], -big - 1, -big + 1, (-big) // -1)
t = 0
for i in range(-3, 3):
    t += -big // 4 + i
print(t, t == -big * 6 // 4 - 3, hash(-big) == hash(-(2 ** 63)))
final_answer((len(d), len(s), t))
