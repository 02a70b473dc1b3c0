# frozenset: an immutable, hashable set with its own type and repr.
primes = frozenset([7, 3, 5, 2, 3])
evens = {2, 4, 6, 8}
print(primes, frozenset(), type(primes).__name__, len(primes))
print(isinstance(primes, frozenset), isinstance(primes, set), type(primes) is frozenset)

# Hashable: frozensets as dict keys and set elements.
edges = {frozenset({1, 2}): "a-b", frozenset({2, 3}): "b-c"}
print(edges[frozenset([2, 1])], frozenset({3, 2}) in edges)
seen = {frozenset({1, 2}), frozenset({2, 1}), frozenset({4})}
print(len(seen), frozenset({4}) in seen)

# Operators keep the type of the left operand.
u = primes | evens
v = evens | primes
print(u, type(u).__name__, v, type(v).__name__)
print(primes & evens, evens & primes, primes - evens, primes ^ evens)
print(primes == {2, 3, 5, 7}, {2, 3, 5, 7} == primes, primes != frozenset({2}))
print(frozenset({2, 3}) < primes, primes <= primes, primes > frozenset({9}))

# Methods take any iterables; none of them mutates.
print(primes.union([11], (13,)), primes.intersection(range(4), [3]))
print(primes.difference([2, 3]), primes.symmetric_difference([1, 2]))
print(primes.issubset(range(10)), primes.issuperset([2, 3]), primes.isdisjoint(evens))
print(primes.copy() is primes, sorted(primes, reverse=True), sum(primes), min(primes), max(primes))
try:
    primes.add(11)
except AttributeError as e:
    print("AttributeError:", e)
try:
    frozenset([[1, 2]])
except TypeError as e:
    print("TypeError:", e)

import copy, json
print(copy.copy(primes) is primes, copy.deepcopy(primes) == primes)
try:
    json.dumps(primes)
except TypeError as e:
    print("TypeError:", e)

# Grouping anagrams by their letter sets.
words = ["listen", "silent", "enlist", "google", "gogole", "cat"]
groups = {}
for w in words:
    groups.setdefault(frozenset(w), []).append(w)
final_answer(sorted(sorted(g) for g in groups.values()))
