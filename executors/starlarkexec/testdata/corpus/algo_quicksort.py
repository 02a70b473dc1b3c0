def quicksort(xs):
    if len(xs) < 2:
        return xs
    pivot, *rest = xs
    return quicksort([x for x in rest if x < pivot]) + [pivot] + quicksort([x for x in rest if x >= pivot])

import random
random.seed(7)
data = [random.randint(1, 100) for _ in range(15)]
print("input: ", data)
print("sorted:", quicksort(data))
final_answer(quicksort(data)[:5])
