import copy

original = {"name": "cfg", "values": [1, 2, [3, 4]]}
shallow = copy.copy(original)
deep = copy.deepcopy(original)
shallow["values"].append(5)
deep["values"][2].append(99)
print(original)
print(shallow is original, shallow["values"] is original["values"], deep["values"] is original["values"])
print(deep)
a = [1, 2]
b = a[:]
c = list(a)
b.append(3)
print(a, b, c, a == c, a is c)
final_answer(original["values"])
