class CM:
    def __init__(self, name, suppress=False):
        self.name = name
        self.suppress = suppress
    def __enter__(self):
        print("enter", self.name)
        return self
    def __exit__(self, et, ev, tb):
        print("exit", self.name, et.__name__ if et else None, ev)
        return self.suppress

with CM("a") as c:
    print("body", c.name)
with CM("b", True):
    raise ValueError("boom")
print("after b")
try:
    with CM("c"), CM("d") as d:
        print("in", d.name)
        raise KeyError("k")
except KeyError as e:
    print("caught", repr(e))

def f():
    for i in range(3):
        with CM(str(i)):
            if i == 1:
                continue
            if i == 2:
                return "ret"
            print("loop", i)
print(f())

class Timer:
    log = []
    def __enter__(self):
        Timer.log.append("start")
        return 42
    def __exit__(self, *exc):
        Timer.log.append("stop")
        return False

def use():
    with Timer() as t:
        return t + 1
print(use(), Timer.log)

try:
    with 5:
        pass
except TypeError as e:
    print("TypeError", e)

class Broken:
    def __enter__(self):
        return self
    def __exit__(self, et, ev, tb):
        raise RuntimeError("from exit")
try:
    with Broken():
        print("inside")
except RuntimeError as e:
    print("caught", e)

total = 0
for i in range(5):
    with CM("x" + str(i), True):
        if i % 2:
            raise ValueError(i)
        total += i
print("total", total)
final_answer((total, Timer.log))
