# Assigning existing keys while looping over a dict is legal; adding or
# removing keys raises RuntimeError. A loop over a list sees the items
# its body appends, and may assign items as it goes.
prices = {'apple': 3, 'pear': 5}
for k in prices:
    prices[k] *= 10
print(prices)

counts = {'a': 1, 'b': 2, 'c': 3}
for k in counts:
    counts[k] = counts[k] + 1
print(counts)

def grow(d):
    for k in d:
        d[k + '!'] = 0

try:
    grow(counts)
except RuntimeError as e:
    print("RuntimeError:", e)

try:
    for k in counts:
        del counts[k]
except RuntimeError as e:
    print("RuntimeError:", e)

queue = [1]
order = []
for node in queue:
    order.append(node)
    if node < 20:
        queue.append(node * 2)
        queue.append(node * 2 + 1) if node % 3 == 0 else None
print(order)

nums = [1, 2, 3, 4]
for i in nums:
    nums[i - 1] = i * i
print(nums)

from collections import Counter, OrderedDict
c = Counter('banana')
for ch in c:
    c[ch] *= 2
print(sorted(c.items()))
o = OrderedDict(x=1, y=2)
for k in o:
    o[k] = -o[k]
print(list(o.items()))

def walk(d):
    for k in d:
        d[k] = 0
        yield k
e = {'p': 1, 'q': 2}
print(list(walk(e)), e)
final_answer(order)
