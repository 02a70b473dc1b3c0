sentence = "agents write code to solve tasks"
reversed_words = " ".join(reversed(sentence.split()))
print(reversed_words)
each_reversed = " ".join(w[::-1] for w in sentence.split())
print(each_reversed)
capitalized_last = " ".join(w[:-1] + w[-1].upper() for w in sentence.split())
print(capitalized_last)
final_answer(reversed_words)
