a, b = 17, 5
print(a + b, a - b, a * b, a / b, a // b, a % b, a ** b, divmod(a, b))
print(-a // b, -a % b, divmod(-a, b), abs(-a), -a)
print(a & b, a | b, a ^ b, ~a, a << 3, a >> 2)
print(True + True, True * 10, False - 1, 3 * True)
print(int(3.99), int(-3.99), int("-12"), float(7), 7 == 7.0, 7 != 7.5)
print(max(3, 7, 1), min([4, -2, 9]), sum([1, 2, 3], 10), sum([0.1] * 10))
final_answer(divmod(-a, b))
