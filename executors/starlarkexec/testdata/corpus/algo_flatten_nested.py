def flatten(obj):
    out = []
    for item in obj:
        if isinstance(item, (list, tuple)):
            out.extend(flatten(item))
        else:
            out.append(item)
    return out

nested = [1, [2, [3, 4], (5, 6)], [], [[[7]]], "eight", [9.0, None]]
flat = flatten(nested)
print(flat)
numbers = [x for x in flat if isinstance(x, (int, float)) and not isinstance(x, bool)]
print("sum of numbers:", sum(numbers))
final_answer(flat)
