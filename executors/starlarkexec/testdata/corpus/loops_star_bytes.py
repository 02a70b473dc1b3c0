# *bytes and unpacking bytes give ints; *set and unpacking a set give
# its elements in CPython's order.
print(*b'ab')
print([*b'xy', *{5, 4}])
a, b = b'xy'
print(a, b)
first, *rest = b'abc'
print(first, rest)
*init, last = b'\x00\xff'
print(init, last)
print(*{3, 1, 2})
lo, hi = {20, 10}
print(lo, hi)
head, *tail = {30, 10, 20}
print(head, tail)

def count(*args):
    return len(args), args

print(count(*b'hi'))
try:
    a, b = b'xyz'
except ValueError as e:
    print("ValueError:", e)
final_answer((a, b, first, rest))
