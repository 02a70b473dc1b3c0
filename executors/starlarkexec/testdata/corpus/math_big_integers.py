factorial = 1
for i in range(1, 31):
    factorial *= i
print("30! =", factorial)
print(2 ** 100, -(2 ** 70) // 3, (2 ** 64) % 1000007)
print(pow(3, 200, 10 ** 9 + 7), pow(2, -1, 7))
digits = sum(int(d) for d in str(factorial))
print("digit sum:", digits)
print(int("1" * 30) * 9 + 9)
final_answer(factorial % (10 ** 9 + 7))
