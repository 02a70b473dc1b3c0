values = [1, 1.0, -0.5, 1e100, "it's", 'say "hi"', None, True, False, (1,), (), [], {}, set(), {1, 2}, {"a": [1, (2, 3)]}, range(5), range(1, 10, 2), b"bytes", 3 + 4j]
for v in values:
    print(repr(v), str(v))
print(values[:6])
final_answer(values[9:15])
