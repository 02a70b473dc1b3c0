s = "abcdefghij"
l = list(range(10))
print(s[2:5], s[:3], s[7:], s[-3:], s[::2], s[::-1], s[-2:1:-3], s[100:], s[5:2])
print(l[1:8:3], l[::-1][:3], l[-1], l[len(l) // 2])
l[2:4] = ["x", "y", "z"]
print(l)
l[::3] = [0] * len(l[::3])
print(l)
t = (1, 2, 3, 4)
print(t[1:], t[::-2])
final_answer(s[::-1][::3])
