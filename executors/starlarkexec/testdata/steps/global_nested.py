# Nested functions and closures that declare a global.
count = 0
def outer():
    def inner():
        global count
        count += 1
        return count
    return inner
inc = outer()
# --- step
print(inc(), inc())
# --- step
handlers = [lambda: inc() * 10]
print(handlers[0]())
# --- step
count = -5
print(inc(), handlers[0](), count)
