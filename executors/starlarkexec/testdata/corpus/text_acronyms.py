phrases = ["portable network graphics", "as soon as possible", "graphics processing unit", "for your information"]
acronyms = {}
for p in phrases:
    acronym = "".join(word[0] for word in p.split()).upper()
    acronyms[acronym] = p
    print(f"{acronym:<5} = {p}")
final_answer(sorted(acronyms))
