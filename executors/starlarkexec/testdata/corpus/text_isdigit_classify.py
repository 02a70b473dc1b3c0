tokens = ["42", "3.14", "-7", "abc", "x9", "", "   ", "Ⅻ", "٣", "1_000", "ABC", "MixedCase"]
for t in tokens:
    kinds = []
    if t.isdigit(): kinds.append("digit")
    if t.isnumeric(): kinds.append("numeric")
    if t.isalpha(): kinds.append("alpha")
    if t.isalnum(): kinds.append("alnum")
    if t.isspace(): kinds.append("space")
    if t.isupper(): kinds.append("upper")
    if t.islower(): kinds.append("lower")
    print(repr(t), kinds)
final_answer([t for t in tokens if t.isdecimal()])
