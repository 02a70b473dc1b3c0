# The second case: the global does not exist when the function is
# defined; the next step binds it, then calls the function.
def bump():
    global n
    n += 1
# --- step
n = 5
bump()
print(n)
# --- step
bump()
bump()
# --- step
print(n)
# --- step
n *= 10
bump()
print(n)
