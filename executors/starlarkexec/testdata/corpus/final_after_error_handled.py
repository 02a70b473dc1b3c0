def risky(n):
    if n == 3:
        raise ValueError("three is not allowed")
    return n * n

results = {}
for n in range(5):
    try:
        results[n] = risky(n)
    except ValueError as e:
        print("skipped:", e)
final_answer(results)
