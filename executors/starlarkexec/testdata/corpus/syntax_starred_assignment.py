scores = [99, 87, 75, 64, 58]
first, *rest = scores
*init, last = scores
head, *middle, tail = scores
print(first, rest)
print(init, last)
print(head, middle, tail)
a, b, *c = (1, 2)
print(a, b, c)
for name, *values in [("x", 1, 2), ("y", 3)]:
    print(name, values)
(p, q), r = (1, 2), 3
print(p, q, r)
final_answer(middle)
