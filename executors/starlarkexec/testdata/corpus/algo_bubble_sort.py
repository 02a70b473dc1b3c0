def bubble_sort(values):
    values = list(values)
    swaps = 0
    for i in range(len(values)):
        swapped = False
        for j in range(len(values) - 1 - i):
            if values[j] > values[j + 1]:
                values[j], values[j + 1] = values[j + 1], values[j]
                swaps += 1
                swapped = True
        if not swapped:
            break
    return values, swaps

result, swaps = bubble_sort([64, 34, 25, 12, 22, 11, 90, 5])
print(result, "swaps:", swaps)
final_answer(result)
