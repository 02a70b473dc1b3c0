# A generator that assigns a global as it runs.
produced = 0
def gen(k):
    global produced
    for i in range(k):
        produced += 1
        yield i
# --- step
print(list(gen(3)), produced)
# --- step
g = gen(2)
print(next(g), produced)
print(next(g), produced)
# --- step
print(sum(gen(4)), produced)
