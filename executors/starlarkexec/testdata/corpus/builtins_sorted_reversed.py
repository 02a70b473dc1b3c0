people = [("ann", 31), ("bob", 25), ("cid", 31), ("dee", 19)]
print(sorted(people, key=lambda p: p[1]))
print(sorted(people, key=lambda p: (-p[1], p[0])))
print(sorted(people, key=lambda p: p[1], reverse=True))
print(sorted("Banana"), sorted("Banana", key=str.lower), sorted({3: "c", 1: "a"}))
print(list(reversed([1, 2, 3])), list(reversed(range(4))), "".join(reversed("abc")))
nums = [5, 2, 9]
nums.sort(reverse=True)
print(nums, sorted([3.5, -1, 2]), sorted([[2, 1], [1, 9], [1, 2]]))
final_answer([p[0] for p in sorted(people, key=lambda p: (p[1], p[0]))])
