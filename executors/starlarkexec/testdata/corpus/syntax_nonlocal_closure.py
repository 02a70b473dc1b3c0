def make_counter(start=0):
    count = start
    def increment(step=1):
        nonlocal count
        count += step
        return count
    return increment

c = make_counter(10)
print(c(), c(), c(5))
d = make_counter()
print(d(), c())

def make_averager():
    total, n = 0, 0
    def add(x):
        nonlocal total, n
        total += x
        n += 1
        return total / n
    return add

avg = make_averager()
print([avg(x) for x in [10, 20, 60]])
final_answer(c())
