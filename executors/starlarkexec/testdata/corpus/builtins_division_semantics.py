cases = [(7, 3), (-7, 3), (7, -3), (-7, -3), (7.0, 3), (6, 3), (0, 5), (5.5, 0.5)]
for a, b in cases:
    print(a, b, a / b, a // b, a % b, divmod(a, b))
print(10 / 2, type(10 / 2).__name__, 10 // 2, type(10 // 2).__name__, 10.0 // 4)
print(-0.0, 0.0 == -0.0, 1 % 1.0, (-1) % 5.0)
final_answer([a // b for a, b in cases])
