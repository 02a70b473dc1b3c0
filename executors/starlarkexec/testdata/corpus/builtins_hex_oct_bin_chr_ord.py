for n in [0, 7, 255, -10, 4096]:
    print(n, hex(n), oct(n), bin(n))
print(int("0x1f", 16), int("1f", 16), int("-101", 2), int("z", 36), int("0o17", 0), int("0b101", 0))
word = "Agent"
codes = [ord(c) for c in word]
print(codes, "".join(chr(c + 1) for c in codes))
print(format(255, "x"), format(255, "#010b"), format(3.14159, ".2f"), format("x", "^5"), format(1234567, ","))
final_answer(codes)
