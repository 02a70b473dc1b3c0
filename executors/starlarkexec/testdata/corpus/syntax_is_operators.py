values = [None, 0, "", [], False, "x"]
for v in values:
    print(repr(v), v is None, v is not None, v == None)
a = [1, 2]
b = a
c = [1, 2]
print(a is b, a is c, a == c, a is not c)
flag = True
print(flag is True, (1 == 1) is True, None is None)
final_answer(sum(1 for v in values if v is not None))
