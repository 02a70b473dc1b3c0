import math
from functools import reduce

numbers = [84, 126, 210, 462]
g = reduce(math.gcd, numbers)
l = reduce(lambda a, b: a * b // math.gcd(a, b), numbers)
print("gcd:", g, "lcm:", l)
print(math.gcd(0, 9), math.lcm(4, 6, 10), math.gcd(*numbers))
fractions_reduced = [(n // math.gcd(n, 360), 360 // math.gcd(n, 360)) for n in (90, 120, 45)]
print(fractions_reduced)
final_answer((g, l))
