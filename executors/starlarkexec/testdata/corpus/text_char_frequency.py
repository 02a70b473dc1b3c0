from collections import Counter

text = "mississippi river banks"
letters = Counter(c for c in text if c.isalpha())
print(letters.most_common(4))
print(sorted(letters.elements())[:6])
singles = sorted(c for c, n in letters.items() if n == 1)
print("letters seen once:", singles)
final_answer(dict(letters.most_common(2)))
