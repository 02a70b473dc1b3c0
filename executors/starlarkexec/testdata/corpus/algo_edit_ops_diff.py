old = ["import os", "x = 1", "y = 2", "print(x)", "print(y)"]
new = ["import sys", "x = 1", "y = 3", "print(x)", "print(y)", "done()"]
removed = [l for l in old if l not in new]
added = [l for l in new if l not in old]
for l in removed:
    print("-", l)
for l in added:
    print("+", l)
unchanged = sum(1 for a, b in zip(old, new) if a == b)
print(f"{unchanged} lines unchanged in place")
final_answer({"added": len(added), "removed": len(removed)})
