# list.sort empties the list while it sorts, so a key that adds to it
# makes CPython's ValueError; int() and float() read Unicode digits.
scores = [3, 1, 2]
try:
    scores.sort(key=lambda v: scores.append(v) or v)
except ValueError as e:
    print("ValueError:", e, scores)
seen = []
scores.sort(key=lambda v: seen.append(len(scores)) or -v)
print(scores, seen)
try:
    scores.sort(key=lambda v: 1 / (v - 1))
except ZeroDivisionError:
    print("key failed; items kept:", sorted(scores))

print(int("٣"), int("１２"), float("１.５"), int(" ٤٢ "), int("-１"), int("１０", 16), float("٣e٢"))
for text in ["٣x", "½"]:
    try:
        print(int(text))
    except ValueError as e:
        print("ValueError:", e)
final_answer(int("٢٠٢٤") + 1)
