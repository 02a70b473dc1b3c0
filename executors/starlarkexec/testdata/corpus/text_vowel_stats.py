phrase = "Programming in Python is surprisingly pleasant"
vowels = "aeiou"
counts = {v: phrase.lower().count(v) for v in vowels}
print(counts)
total_vowels = sum(counts.values())
letters = sum(1 for c in phrase if c.isalpha())
print(f"{total_vowels} vowels out of {letters} letters ({total_vowels / letters:.1%})")
no_vowels = "".join(c for c in phrase if c.lower() not in vowels)
print(no_vowels)
final_answer(total_vowels)
