# bool is a subtype of int: equality, hashing and ordering unify True, 1 and 1.0.
d = {}
d[1] = 'a'
d[True] = 'b'
print(d)
d2 = {True: 'x'}
d2[1.0] = 'y'
d2[0] = 'z'
d2[False] = 'w'
print(d2, d2[1], d2[0.0])
print(True in {1, 2}, 1 in {True}, 0.0 in {False}, False in [0], True in (2, 1))
s = {1, True, 1.0, 0, False}
print(s, len(s))
print([1, 0] == [True, False], (True, 2) == (1, 2), {True: 1} == {1: 1})
print(hash(True) == hash(1), hash(False) == hash(0))
print(sorted([True, 2, 0.5, False, -1]), max(True, 0.5), min(False, -0.0))
print(True < 2, False <= 0, 1.5 > True, [True, 1] < [1, 2])
print(list({1: 'a', True: 'b', 1.0: 'c'}.items()))
counts = {}
for k in [1, True, 1.0, 2, False, 0]:
    counts[k] = counts.get(k, 0) + 1
print(counts)
print([1, True, 2].count(True), [0, 1].index(True), (False, 1).index(0))
final_answer(sum([True, True, 1]))
