def mean(values):
    assert values, "values must not be empty"
    assert all(isinstance(v, (int, float)) for v in values), f"non-numeric in {values!r}"
    return sum(values) / len(values)

print(mean([1, 2, 3]))
failures = []
for bad in ([], [1, "2"]):
    try:
        mean(bad)
    except AssertionError as e:
        failures.append(str(e))
print(failures)
assert 1 + 1 == 2
final_answer(failures)
