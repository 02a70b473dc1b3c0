import string

quote = "Well... I'd say: 'Don't panic!' -- it's (mostly) harmless; right?"
table = str.maketrans("", "", string.punctuation)
bare = quote.translate(table)
print(bare)
words = bare.lower().split()
print(words)
print(len(string.ascii_letters), string.digits, string.punctuation[:10])
final_answer(len(words))
