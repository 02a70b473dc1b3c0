# An iterator over a dict view reads values as it reaches them and raises
# CPython's RuntimeError once the dict changes size.
prices = {"apple": 1, "pear": 2, "fig": 3}
it = iter(prices.items())
print(next(it))
prices["pear"] = 20
print(next(it), list(iter(prices.values())), list(iter(prices.keys())))
gen = (k for k in prices.items())
print(next(gen), list(gen))
print(list(zip(prices.keys(), prices.values())), sorted(prices.items(), key=lambda kv: -kv[1]), max(prices.values()))
it = iter(prices.items())
prices["kiwi"] = 4
try:
    next(it)
except RuntimeError as e:
    print("RuntimeError:", e)
it = iter(prices.values())
next(it)
prices.pop("fig")
try:
    next(it)
except RuntimeError as e:
    print("RuntimeError:", e)
final_answer(dict(prices.items()))
