measurements = [0.5, 0.0, 1.2, -0.4, 3.3, 0.0, 2.1]
invalid = [(i, m) for i, m in enumerate(measurements) if m <= 0]
print("invalid positions:", invalid)
valid = [m for m in measurements if m > 0]
print("valid:", valid)
ratio = len(valid) / len(measurements)
print("valid ratio:", round(ratio, 3))
final_answer(len(valid))
