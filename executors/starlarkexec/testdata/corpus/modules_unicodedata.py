import unicodedata

for ch in ["é", "A", "٣", "€", "ß"]:
    print(ch, unicodedata.name(ch), unicodedata.category(ch))
decomposed = unicodedata.normalize("NFD", "Crème brûlée")
ascii_only = "".join(c for c in decomposed if unicodedata.category(c) != "Mn")
print(ascii_only, len(decomposed), len(unicodedata.normalize("NFC", decomposed)))
print(unicodedata.numeric("½"), unicodedata.digit("٣"), unicodedata.lookup("SNOWMAN"))
final_answer(ascii_only)
