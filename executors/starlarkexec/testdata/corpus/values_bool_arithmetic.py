# bool is an int in arithmetic too, as in CPython: True + 1 is 2,
# sequences repeat by a bool, and two bools under & | ^ stay bools.
a, b = True, False
print(1 + a, a + a, a * 3, -a, a - 1, 2 ** a, a ** 2, a / 2, a // 1, a % 2)
print(a & 3, a | 2, a ^ 1, a << 2, a >> 1, ~a, +a, 1.5 + a, a * 2.5, b - a)
print(sum([a, a, b]), abs(b - a), [1, 2][a], 'ab' * a, a * [7], (1, 2) * b, divmod(a, 2), round(a), int(a) + a)
print(a & b, a | b, a ^ a, type(a & b).__name__, type(a + b).__name__, type(-a).__name__)
print('%s %d %r' % (a, a, b), '%5.1f' % a, f'{a + a}')
x = 5
x += a
x *= True
print(x, hash(a) == hash(1), a == 1.0)
for expr in ('a + "s"', '"s" + a', 'a / b', 'a // b', '[1] + a'):
    try:
        eval_result = {'a + "s"': lambda: a + "s", '"s" + a': lambda: "s" + a, 'a / b': lambda: a / b, 'a // b': lambda: a // b, '[1] + a': lambda: [1] + a}[expr]()
        print(expr, eval_result)
    except (TypeError, ZeroDivisionError) as e:
        print(expr, type(e).__name__, e)
final_answer(sum(v > 2 for v in [1, 5, 7]) * True)
