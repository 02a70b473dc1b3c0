words = ["pear", "fig", "banana", "kiwi"]
print(min(words), max(words), min(words, key=len), max(words, key=len))
print(max(3, 9, 2), min(3.5, 2, key=lambda x: -x), max([], default="none"))
print(max({"a": 3, "b": 7}.items(), key=lambda kv: kv[1]), min("hello"), max([1, 2], [1, 3]))
print(max([(2, "b"), (2, "a"), (1, "z")]), min(range(10, 0, -3)))
print(max(words, key=lambda w: (len(w), w)), max(-1, -1.0), min(1, True))
final_answer(min(words, key=lambda w: w[-1]))
