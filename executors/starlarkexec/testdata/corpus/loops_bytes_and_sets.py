# Iterating bytes yields ints; a set changed while a loop runs over it
# raises RuntimeError at the next step, as in CPython.
total = 0
for c in b'abc':
    total += c
    print(c, chr(c))
print(total)
print([c * 2 for c in b'\x01\x02'])

seen = {3, 1, 2}
for x in seen:
    print("set item", x)

s = {1, 2, 3}
try:
    for x in s:
        s.add(x + 10)
except RuntimeError as e:
    print("RuntimeError:", e)
print(len(s) > 3)

s = {5, 6}
for x in s:
    s.discard(99)  # no change in size: fine
print(sorted(s))
final_answer(total)
