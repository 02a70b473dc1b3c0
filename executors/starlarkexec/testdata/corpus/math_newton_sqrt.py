def newton_sqrt(x, tolerance=1e-12):
    guess = x / 2 if x > 1 else 1.0
    iterations = 0
    while abs(guess * guess - x) > tolerance * x:
        guess = (guess + x / guess) / 2
        iterations += 1
    return guess, iterations

for value in [2, 10, 144, 1e6, 0.25]:
    root, its = newton_sqrt(value)
    print(f"sqrt({value}) ~ {root:.12g} in {its} iterations")
final_answer(round(newton_sqrt(2)[0], 10))
