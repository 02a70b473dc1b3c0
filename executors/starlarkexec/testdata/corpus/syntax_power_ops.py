base = 2
print(base ** 10, base ** 0.5, (-2) ** 3, -2 ** 2, 2 ** -2, 2 ** 3 ** 2)
x = 3
x **= 2
print(x)
x **= 0.5
print(x)
growth = 1.07
value = 1000 * growth ** 5
print(round(value, 2), pow(2, 10), pow(2.0, 3), pow(10, -2))
final_answer((x, round(value, 2)))
