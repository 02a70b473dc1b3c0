def solve(numbers):
    total = 0
    for n in numbers:
        total += n
        if total > 10:
            print("threshold crossed at", n)
            final_answer(total)
    return total

print("starting")
solve([2, 4, 3, 5, 8])
print("this line never prints")
