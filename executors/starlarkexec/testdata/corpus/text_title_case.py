small = {"a", "an", "the", "of", "in", "on", "and", "or", "to"}
def headline(s):
    words = s.lower().split()
    out = []
    for i, w in enumerate(words):
        if i > 0 and w in small:
            out.append(w)
        else:
            out.append(w.capitalize())
    return " ".join(out)

titles = ["the lord of the rings", "a tale of two cities", "war and peace", "GONE WITH THE WIND"]
for t in titles:
    print(headline(t), "|", t.title())
final_answer(headline(titles[0]))
