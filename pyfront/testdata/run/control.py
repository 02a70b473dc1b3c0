total = 0
for i in range(10):
    if i % 2 == 0:
        continue
    if i > 7:
        break
    total += i
print(total)
for i in range(3):
    pass
else:
    print("for-else ran")
for i in range(3):
    if i == 1:
        break
else:
    print("not printed")
print("after", i)
def find(xs, t):
    for x in xs:
        if x == t:
            print("found", t)
            break
    else:
        print("missing", t)
find([1, 2], 2)
find([1, 2], 3)
k = 0
while k < 3:
    k += 1
else:
    print("while-else", k)
k = 0
while True:
    k += 1
    if k == 4:
        break
print(k)
for i in range(2):
    for j in range(5):
        if j == 1:
            break
    else:
        print("inner else")
print("nested ok")
n = 0
while n < 5:
    n += 1
    if n == 10:
        break
else:
    print("while else after no break", n)
for ch in "hey":
    print(ch, end="")
print()
for idx, ch in enumerate(["a", "b"]):
    print(idx, ch)
for k, v in {"x": 1, "y": 2}.items():
    print(k, v)
if __name__ == "__main__":
    print("main")
