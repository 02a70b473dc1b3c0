names = ["ann", "bob", "cid"]
ages = [31, 25, 40, 99]
for i, name in enumerate(names, start=1):
    print(i, name)
print(list(enumerate("ab", 10)))
print(list(zip(names, ages)), dict(zip(names, ages)))
print(list(zip(names, ages, "xyz")), list(zip()))
pairs = list(zip(*[(1, "a"), (2, "b")]))
print(pairs)
final_answer(dict(enumerate(names)))
