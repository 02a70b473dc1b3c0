def max_subarray(nums):
    best = cur = nums[0]
    start = best_start = best_end = 0
    for i in range(1, len(nums)):
        if cur + nums[i] < nums[i]:
            cur, start = nums[i], i
        else:
            cur += nums[i]
        if cur > best:
            best, best_start, best_end = cur, start, i
    return best, nums[best_start:best_end + 1]

for nums in ([-2, 1, -3, 4, -1, 2, 1, -5, 4], [5, -1, 5], [-3, -2, -5]):
    print(nums, "->", max_subarray(nums))
final_answer(max_subarray([-2, 1, -3, 4, -1, 2, 1, -5, 4]))
