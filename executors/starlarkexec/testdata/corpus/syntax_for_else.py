def find_first_negative(values):
    for i, v in enumerate(values):
        if v < 0:
            print(f"found negative {v} at {i}")
            break
    else:
        print("no negatives")
        return None
    return i

print(find_first_negative([3, 5, -2, 8]))
print(find_first_negative([1, 2, 3]))
for n in range(2, 12):
    for d in range(2, n):
        if n % d == 0:
            break
    else:
        print(n, "is prime")
final_answer(find_first_negative([0, -1]))
