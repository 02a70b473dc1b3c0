# float.fromhex, the inverse of float.hex, with CPython's errors.
for text in ["0x1p-1", "0x1.8", "1.8p1", " -0X1.FFFFFFFFFFFFFP+1023 ", "inf", "-nan", "0x.8", "0x1p-1074", "0x1p-1080", "10"]:
    print(repr(text), float.fromhex(text))
for text in ["0x1p1024", "xyz", "0x1.2.3", ""]:
    try:
        print(float.fromhex(text))
    except (ValueError, OverflowError) as e:
        print(repr(text), type(e).__name__, e)
values = [3.14, 1e-310, -0.0, 2.0 ** 60 + 1]
print(all(float.fromhex(v.hex()) == v for v in values))
final_answer(float.fromhex((0.1).hex()))
