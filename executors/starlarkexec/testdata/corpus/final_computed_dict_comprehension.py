text = "to be or not to be that is the question"
freq = {}
for w in text.split():
    freq[w] = freq.get(w, 0) + 1
repeated = {w: n for w, n in freq.items() if n > 1}
print(repeated)
final_answer(repeated)
