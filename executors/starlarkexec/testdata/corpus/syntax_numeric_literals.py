million = 1_000_000
mask = 0xFF_FF
bits = 0b1010_1010
perms = 0o755
rate = 1_000.5
tiny = 1e-3
big = 2.5E6
print(million, mask, bits, perms, rate, tiny, big)
print(0x1F, 0B11, 0O17, 1_2_3, .5, 5., 1e0)
print(million + mask, f"{million:_}", type(big).__name__)
final_answer(million + bits + perms)
