import math
import json as j
from collections import Counter, defaultdict as dd
from itertools import chain
import statistics, string

print(math.sqrt(16), j.dumps([1, 2]))
c = Counter("abracadabra")
d = dd(int)
for ch in "hello":
    d[ch] += 1
print(c["a"], dict(d))
print(list(chain([1], [2, 3])), statistics.median([3, 1, 2]), string.ascii_lowercase[:5])
final_answer(sorted(d))
