data = [1, 2, 3, 4]
if (n := len(data)) > 3:
    print("long", n)
i = 0
values = [5, 3, 0, 9]
while (v := values[i]) != 0:
    print("v", v)
    i += 1
print(v)
total = (s := 10) + 5
print(s, total)
print(y := 7, y)
def f():
    if (z := 3) and z > 2:
        return z
    return 0
print(f())
k = 0
while (k := k + 1) < 3:
    pass
else:
    print("done", k)
