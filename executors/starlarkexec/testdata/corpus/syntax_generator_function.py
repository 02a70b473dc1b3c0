def countdown(n):
    while n > 0:
        yield n
        n -= 1

def fibonacci(limit):
    a, b = 0, 1
    while a < limit:
        yield a
        a, b = b, a + b

for x in countdown(3):
    print("tick", x)
print(list(fibonacci(100)))
print(sum(fibonacci(1000)), max(countdown(7)))
gen = countdown(2)
print(next(gen), next(gen), next(gen, "finished"))
final_answer(list(fibonacci(50)))
