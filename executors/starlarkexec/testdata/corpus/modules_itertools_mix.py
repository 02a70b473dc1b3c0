import itertools as it

print(list(it.combinations("ABCD", 2)))
print(list(it.permutations([1, 2, 3], 2)))
print(list(it.product("ab", repeat=2)), list(it.product([1, 2], ["x"])))
print(list(it.islice(it.count(10, 5), 4)), list(it.islice(it.cycle("xy"), 5)))
print(list(it.chain.from_iterable([[1, 2], [3]])), list(it.repeat("z", 3)))
data = sorted(["apple", "avocado", "banana", "blueberry", "cherry"], key=lambda s: s[0])
print({k: list(g) for k, g in it.groupby(data, key=lambda s: s[0])})
print(list(it.accumulate([1, 2, 3, 4], lambda a, b: a * b)), list(it.zip_longest("ab", [1], fillvalue="-")))
print(list(it.takewhile(lambda x: x < 3, [1, 2, 3, 1])), list(it.dropwhile(lambda x: x < 3, [1, 2, 3, 1])))
print(list(it.starmap(pow, [(2, 3), (3, 2)])), list(it.compress("abcdef", [1, 0, 1, 0, 1, 1])), list(it.pairwise([1, 2, 3])))
final_answer(len(list(it.combinations_with_replacement(range(4), 2))))
