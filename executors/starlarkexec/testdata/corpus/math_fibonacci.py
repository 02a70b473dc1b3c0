def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a

first = [fib(i) for i in range(15)]
print(first)
big = fib(100)
print("fib(100) =", big, "digits:", len(str(big)))
ratio = fib(31) / fib(30)
print(f"golden ratio approx: {ratio:.10f}")
final_answer(big)
