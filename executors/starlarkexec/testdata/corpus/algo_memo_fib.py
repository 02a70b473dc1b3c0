memo = {}
def fib(n):
    if n in memo:
        return memo[n]
    result = n if n < 2 else fib(n - 1) + fib(n - 2)
    memo[n] = result
    return result

print([fib(i) for i in range(10)])
print(fib(90))
print("memo entries:", len(memo))
final_answer(fib(90))
