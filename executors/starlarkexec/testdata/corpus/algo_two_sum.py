def two_sum(nums, target):
    seen = {}
    for i, n in enumerate(nums):
        if target - n in seen:
            return seen[target - n], i
        seen[n] = i
    return None

cases = [([2, 7, 11, 15], 9), ([3, 2, 4], 6), ([1, 5, 3], 100), ([-3, 4, 3, 90], 0)]
answers = []
for nums, target in cases:
    res = two_sum(nums, target)
    answers.append(res)
    print(nums, target, "->", res)
final_answer(answers)
