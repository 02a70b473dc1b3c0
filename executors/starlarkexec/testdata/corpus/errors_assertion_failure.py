def checked_mean(values):
    assert len(values) > 0, "need at least one value"
    return sum(values) / len(values)

print(checked_mean([1, 2, 3]))
print(checked_mean([]))
final_answer("unreachable")
