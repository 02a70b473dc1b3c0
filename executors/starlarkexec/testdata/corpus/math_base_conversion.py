def to_base(n, base):
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    if n == 0:
        return "0"
    out = ""
    while n:
        n, r = divmod(n, base)
        out = digits[r] + out
    return out

for n in [0, 10, 255, 1024, 65535]:
    print(n, bin(n), oct(n), hex(n), to_base(n, 36))
print(int("ff", 16), int("0b1010", 0), int("777", 8), int("zz", 36), int(" 42 "))
final_answer(to_base(123456789, 36))
