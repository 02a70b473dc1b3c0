from collections import deque

def window_max(nums, k):
    dq, out = deque(), []
    for i, n in enumerate(nums):
        while dq and nums[dq[-1]] <= n:
            dq.pop()
        dq.append(i)
        if dq[0] <= i - k:
            dq.popleft()
        if i >= k - 1:
            out.append(nums[dq[0]])
    return out

nums = [1, 3, -1, -3, 5, 3, 6, 7]
print(window_max(nums, 3))
best_sum = max(sum(nums[i:i + 3]) for i in range(len(nums) - 2))
print("best window sum:", best_sum)
final_answer(window_max(nums, 3))
