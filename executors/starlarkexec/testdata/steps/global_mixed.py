# Assignments of several kinds to globals of earlier steps.
a, b = 1, 2
def swap():
    global a, b
    a, b = b, a
def loop():
    global i
    for i in range(3):
        pass
def bump_then_fail():
    global hits
    hits = hits + 1
    raise KeyError("x")
# --- step
hits = 0
def twice():
    swap()
    swap()
    swap()
    return a, b
# --- step
print(twice(), a, b)
loop()
print(i)
# --- step
try:
    bump_then_fail()
except KeyError:
    pass
print(hits)
# --- step
try:
    swap()
    c = a * 10
except Exception:
    c = -1
print(a, b, c)
# --- step
bump_then_fail()
# --- step
print(hits, a, b, i)
