attempts = 0
target = 37
guess_low, guess_high = 0, 100
while guess_low <= guess_high:
    attempts += 1
    mid = (guess_low + guess_high) // 2
    if mid == target:
        print(f"found {mid} in {attempts} attempts")
        break
    elif mid < target:
        guess_low = mid + 1
    else:
        guess_high = mid - 1
else:
    print("not found")

n = 0
while n < 3:
    n += 1
else:
    print("loop finished normally with n =", n)
final_answer(attempts)
