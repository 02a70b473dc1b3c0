# Methods that assign globals, called in later steps.
created = 0
class Counter:
    def __init__(self):
        global created
        created += 1
        self.n = 0
    def tick(self):
        global last
        self.n += 1
        last = self.n
        return last
# --- step
c = Counter()
d = Counter()
c.tick()
print(created, last)
# --- step
print(d.tick(), c.tick(), last, created)
# --- step
created = 10
Counter()
print(created)
