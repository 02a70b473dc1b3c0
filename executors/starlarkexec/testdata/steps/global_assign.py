# The first case: a function of an earlier step assigns a global
# that the step calling it does not mention.
n = 0
# --- step
def bump():
    global n
    n = n + 1
    return n
# --- step
print(bump())
# --- step
print(n, bump(), n)
# --- step
bump()
# --- step
print(n)
