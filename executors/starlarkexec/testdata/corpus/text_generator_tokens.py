def tokens(text):
    word = ""
    for ch in text:
        if ch.isalnum() or ch == "'":
            word += ch
        else:
            if word:
                yield word
                word = ""
            if not ch.isspace():
                yield ch
    if word:
        yield word

sentence = "Don't panic, it's only 42!"
toks = list(tokens(sentence))
print(toks)
print(len(toks), sum(1 for t in tokens(sentence) if t.isalpha()))
final_answer(toks)
