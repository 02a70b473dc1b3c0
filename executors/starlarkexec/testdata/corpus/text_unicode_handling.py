words = ["café", "naïve", "Straße", "東京", "emoji😀", "résumé"]
for w in words:
    print(w, len(w), w.upper(), w[::-1])
print("ß".upper(), "Straße".casefold() == "STRASSE".casefold())
total_chars = sum(len(w) for w in words)
print("total code points:", total_chars)
print([ord(c) for c in "é東"])
final_answer(total_chars)
