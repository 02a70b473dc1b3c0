values = [1 / 3, 2 / 3, 0.1 + 0.2, 1e-8, 123456.789]
print(values)
rounded = [round(v, 4) for v in values]
print(rounded)
final_answer(values)
