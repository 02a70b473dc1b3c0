# Generates numeric_cpython.txt, what CPython 3.11 computes for the float
# and integer operations of fast_arith.go and fast_pow.go:
#     python3 numeric_cpython.py > numeric_cpython.txt
# Each line: op, x, y, then repr(result) or !ExceptionType.
import random
random.seed(20)
floats = [0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 6.0, -6.0, 0.1, -0.1, 1e300, -1e300, 1e-310, 5e-324, 2.5, -2.5, 7.0, 1/3, float('inf'), float('-inf'), float('nan')]
floats += [random.uniform(-100, 100) for _ in range(40)]
cases = []
for x in floats:
    for y in floats:
        for op in ('//', '%', 'divmod'):
            cases.append((op, x, y))
for _ in range(3000):
    x = random.choice([random.uniform(0, 10), random.uniform(0, 1e6), 10 ** random.uniform(-300, 300), -random.uniform(0, 10), float(random.randint(-20, 20))])
    y = random.choice([random.uniform(-5, 5), float(random.randint(-30, 30)), 1 / random.randint(1, 10), random.uniform(-300, 300)])
    cases.append(('**', x, y))
cases += [('**', 8.0, 1/3), ('**', 27.0, 1/3), ('**', 2.0, 0.5), ('**', -8.0, 3.0), ('**', -2.0, 0.5), ('**', 0.0, -1.0), ('**', 10.0, 308.0), ('**', 10.0, 309.0), ('**', 2.0, -1074.0), ('**', 2.0, -1080.0), ('**', -0.0, 3.0), ('**', -0.0, -3.0), ('**', float('-inf'), 3.0), ('**', float('nan'), 0.0), ('**', 1.0, float('nan'))]
ints = [0, 1, -1, 2, -2, 7, -7, 2**31 - 1, -2**31, 2**32, 2**62, 2**63 - 1, -2**63, 2**64, -2**64, 3**40, -(3**40), 10**30]
for x in ints:
    for y in ints:
        cases.append(('*', x, y))
    for y in [0, 1, 2, 3, 31, 32, 62, 63, 64, 65, 100, 511, 512, 1000, 100000, -1]:
        cases.append(('<<', x, y))
        cases.append(('>>', x, y))
    for y in [0, 1, 2, 3, 5, 20, 39, 40, 62, 63, 64]:
        cases.append(('**', x, y))
def run(op, x, y):
    if op == 'divmod':
        return divmod(x, y)
    if op == '<<':
        r = x << y
        return ('bits', r.bit_length(), r % 1000003) if r.bit_length() > 200 else r
    return eval('x %s y' % op)
for op, x, y in cases:
    try:
        r = repr(run(op, x, y))
    except Exception as e:
        r = '!' + type(e).__name__
    print(op, repr(x), repr(y), r)
