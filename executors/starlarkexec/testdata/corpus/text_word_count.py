text = """It was the best of times, it was the worst of times, it was the age of
wisdom, it was the age of foolishness, it was the epoch of belief"""
words = [w.strip(",.").lower() for w in text.split()]
print("total words:", len(words))
print("unique words:", len(set(words)))
freq = {}
for w in words:
    freq[w] = freq.get(w, 0) + 1
top = sorted(freq.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
print(top)
final_answer(top[0])
