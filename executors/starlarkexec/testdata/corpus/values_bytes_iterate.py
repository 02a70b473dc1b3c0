# bytes are sequences of ints: iterating, collecting and reversing them
# gives byte values, as in CPython.
data = b"Hi!\xff"
print(list(data), tuple(b"ab"), sorted(b"cab"), sum(b"ab"), max(data), min(data))
print(set(b"aa"), list(enumerate(b"ab")), list(zip(b"ab", "xy")))
print(list(map(hex, b"\x01\xff")), list(reversed(b"abc")), list(filter(None, b"a\x00b")))
it = iter(b"xyz")
print(next(it), next(it), list(it))
print(bytes(list(b"abc")), bytes(x + 1 for x in list(b"abc")))
print("".join(chr(c) for c in list(b"hello")))
checksum = 0
for i, c in enumerate(list(data)):
    checksum = (checksum * 31 + c) % 65521
print(checksum, b"abc"[0], b"abc"[-1], 97 in list(b"abc"))
final_answer(list(b"ok"))
