a = b = c = 0
a += 1
print(a, b, c)
x = y = []
x.append(1)
print(x, y, x is y)
total = count = 0
for v in [3, 4, 5]:
    total += v
    count += 1
i, j = j, i = 1, 2
print(total, count, i, j)
m, n = n, m = 5, 6
print(m, n)
final_answer((total, count))
