from collections import Counter

a = Counter("the quick brown fox jumps over the lazy dog".split())
b = Counter(["the", "dog", "cat", "cat"])
print(a.most_common(2), a["the"], a["missing"])
print(a + b)
print(b - a)
print(a & b, a | Counter({"the": 5}))
b.update(["cat", "emu"])
b.subtract({"dog": 1})
print(b, sum(b.values()), b.total())
print(sorted(Counter("mississippi").elements()))
final_answer(Counter("mississippi").most_common(2))
