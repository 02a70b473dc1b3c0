sentence = "The quick brown fox jumps over the lazy dog while the cat sleeps"
lengths = {}
for word in sentence.lower().split():
    lengths.setdefault(len(word), set()).add(word)
for length in sorted(lengths):
    print(length, sorted(lengths[length]))
longest = max(lengths)
final_answer(sorted(lengths[longest]))
