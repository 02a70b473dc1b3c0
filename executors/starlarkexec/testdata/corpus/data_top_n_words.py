from collections import Counter

reviews = [
    "great product, fast shipping",
    "product broke after a week, not great",
    "fast delivery and great support",
    "support was slow but product is great",
]
words = []
for review in reviews:
    for w in review.replace(",", "").split():
        if len(w) > 3:
            words.append(w.lower())
counts = Counter(words)
print(counts.most_common(3))
final_answer(counts.most_common(1)[0][0])
