VALUES = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
          (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]

def to_roman(n):
    out = ""
    for value, sym in VALUES:
        count, n = divmod(n, value)
        out += sym * count
    return out

def from_roman(s):
    lookup = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    total = 0
    for a, b in zip(s, s[1:] + " "):
        v = lookup[a]
        total += -v if b != " " and lookup[b] > v else v
    return total

years = [1987, 2024, 3999, 444]
romans = [to_roman(y) for y in years]
print(romans)
print([from_roman(r) for r in romans])
final_answer(romans)
