# A function of step 1 reads a global that a function of step 2 assigns,
# and a function of step 2 calls one of step 1.
total = 0
def get():
    return total
def add(k):
    global total
    total += k
# --- step
def add_twice(k):
    add(k)
    add(k)
    return get()
def reset():
    global total
    total = 0
# --- step
print(add_twice(3), get(), total)
# --- step
reset()
print(get(), add_twice(1))
# --- step
total = 100
print(get(), add_twice(1))
