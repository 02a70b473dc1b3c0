def merge_sort(xs):
    if len(xs) <= 1:
        return xs
    mid = len(xs) // 2
    left, right = merge_sort(xs[:mid]), merge_sort(xs[mid:])
    merged = []
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged

data = [38, 27, 43, 3, 9, 82, 10, 3, -5]
print(merge_sort(data))
print(merge_sort(["pear", "apple", "fig", "banana"]))
final_answer(merge_sort(data) == sorted(data))
