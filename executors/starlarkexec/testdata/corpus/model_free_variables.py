def outer():
    def a(n):
        return b(n) + total
    def b(n):
        return n * 2
    total = 10
    f = lambda: later
    later = 5
    sq = [x * total for x in range(3)]
    return a(1), f(), sq
print(outer())
def counter():
    count = 0
    def inc():
        nonlocal count
        count += 1
        return count
    inc(); inc()
    return count
print(counter())
def broken():
    def show():
        return value
    try:
        show()
    except NameError as e:
        print(type(e).__name__, e)
    value = 3
    return show()
print(broken())
def gen_outer():
    def g():
        for i in range(limit):
            yield i
    limit = 3
    return list(g())
print(gen_outer())
def cond(flag):
    if flag:
        v = 1
    def read():
        return v
    try:
        return read()
    except NameError as e:
        return str(e)
print(cond(True), cond(False))
final_answer(outer())
