items = ["x", "y", "z"]
subsets = [[]]
for item in items:
    subsets += [s + [item] for s in subsets]
print(len(subsets), subsets)
bitmask = [[items[i] for i in range(len(items)) if mask >> i & 1] for mask in range(1 << len(items))]
print(sorted(map(tuple, bitmask)) == sorted(map(tuple, subsets)))
target = 10
nums = [3, 5, 6, 7]
hits = [c for c in ([nums[i] for i in range(4) if m >> i & 1] for m in range(16)) if sum(c) == target]
final_answer(hits)
