things = ["héllo", [1, 2, 3], (1,), {"a": 1, "b": 2}, {1, 2, 2}, range(0, 10, 3), "", "😀👍", b"ab"]
lengths = [len(x) for x in things]
print(lengths)
print(len("\n"), len("\\n"), len(r"\n"), len("tab\t"))
final_answer(lengths)
