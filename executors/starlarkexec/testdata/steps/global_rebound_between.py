# A method reads a global that a later step rebinds: every function sees
# the current value.
limit = 3
class Filter:
    def keep(self, xs):
        return [x for x in xs if x < limit]
f = Filter()
get_limit = lambda: limit
# --- step
print(f.keep([1, 5, 2]), get_limit())
# --- step
limit = 10
# --- step
print(f.keep([1, 5, 20]), get_limit())
