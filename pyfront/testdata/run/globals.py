# global and nonlocal declarations of assigned names.

counter = 0


def increment(by=1):
    global counter
    counter += by
    return counter


increment()
increment(5)
print(counter)


def reset():
    global counter, created
    counter = 0
    created = "yes"


reset()
print(counter, created)


def make_counter():
    count = 0

    def inc():
        nonlocal count
        count += 1
        return count

    def get():
        return count

    return inc, get


inc, get = make_counter()
inc()
inc()
print(inc(), get())


def outer():
    total = []
    n = 0

    def add(x):
        nonlocal n
        total.append(x)
        n = n + x

    for i in range(4):
        add(i)
    return n, total


print(outer())

cache = {}
hits = 0


def lookup(k):
    global hits
    if k in cache:
        hits += 1
        return cache[k]
    cache[k] = k * 2
    return cache[k]


for k in [1, 2, 1, 1, 3]:
    lookup(k)
print(hits, cache)


def safe_update(value):
    global counter
    try:
        counter = int(value)
    except ValueError:
        counter = -1


safe_update("12")
print(counter)
safe_update("x")
print(counter)


def nested_try():
    state = "start"

    def step():
        nonlocal state
        try:
            state = "running"
            raise RuntimeError("fail")
        except RuntimeError as e:
            state = "failed: " + str(e)

    step()
    return state


print(nested_try())

# Slice assignment and deletion.
nums = list(range(10))
nums[2:5] = ["a", "b"]
print(nums)
nums[:0] = [-1]
print(nums)
nums[-2:] = []
print(nums)
nums[::2] = [0] * len(nums[::2])
print(nums)
del nums[1:3]
print(nums)
del nums[::3]
print(nums)
letters = list("abcdef")
letters[1:4] = "XY"
print(letters)
letters[:] = letters[::-1]
print(letters)
del letters[:]
print(letters)
try:
    nums[::2] = [1]
except ValueError as e:
    print("ValueError:", e)
try:
    t = (1, 2, 3)
    t[0:1] = [5]
except TypeError as e:
    print("TypeError:", e)

# del of names.
temp = [1, 2, 3]
del temp
try:
    print(temp)
except NameError as e:
    print("NameError:", e)


def uses_del():
    big = list(range(5))
    size = len(big)
    del big
    try:
        return big
    except UnboundLocalError:
        return size


print(uses_del())


def del_twice():
    v = 1
    del v
    try:
        del v
    except (UnboundLocalError, NameError) as e:
        return type(e).__name__


print(del_twice())
a, b = 1, 2
del a, b
try:
    a
except NameError:
    print("a deleted")
try:
    del never_defined
except NameError as e:
    print(e)
