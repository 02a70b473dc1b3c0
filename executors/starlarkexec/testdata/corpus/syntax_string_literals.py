a = 'single'
b = "double with 'single' inside"
c = 'it\'s escaped'
d = """triple
quoted"""
e = r"raw \n stays \d+"
f = "tab\there\nnewline \\ backslash \u00e9 \x41 \N{GREEK SMALL LETTER ALPHA}"
g = ("implicit "
     "concatenation")
print(a, b, c, d, e, f, g, sep=" | ")
print(repr(f), repr(d), repr('"'), repr("'"), repr("both ' and \""))
final_answer([len(x) for x in (a, b, c, d, e, f, g)])
