# Loops over a dict's views may assign existing keys, as in CPython;
# adding a key raises. Containers compare by content across kinds.
from collections import Counter, OrderedDict, defaultdict

prices = {'apple': 1.5, 'pear': 2.0, 'plum': 0.75}
for name, price in prices.items():
    prices[name] = round(price * 1.1, 2)
for name in prices.keys():
    prices[name] += 0.05
print(prices)

counts = Counter('banana')
print(counts == {'b': 1, 'a': 3, 'n': 2}, counts.keys() == {'a', 'b', 'n'})
dd = defaultdict(int, {'x': 1})
print(dd == {'x': 1}, OrderedDict(x=1) == {'x': 1}, prices.items() == set(prices.items()))

seen = {}.fromkeys('abc', 0)
print(seen, prices.fromkeys(['k'], None))

try:
    for name in prices.keys():
        prices[name + '!'] = 0
except RuntimeError as e:
    print('RuntimeError:', e)

final_answer(sorted(prices))
