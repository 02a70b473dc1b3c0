seconds = 98765
minutes, s = divmod(seconds, 60)
hours, m = divmod(minutes, 60)
print(f"{hours}h {m}m {s}s")
print(divmod(-7, 2), divmod(7.5, 2), divmod(0, 3))
print(pow(2, 10), pow(2, 10, 1000), pow(3, 4, 5), pow(2.5, 2), pow(4, 0.5), pow(2, -2))
print(abs(-5), abs(-2.5), abs(3 - 4j), abs(True))
print(pow(7, -1, 13), 7 * pow(7, -1, 13) % 13)
final_answer((hours, m, s))
