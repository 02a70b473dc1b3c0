import heapq
import bisect

data = [5, 1, 8, 3, 9, 2]
heapq.heapify(data)
print(data[0], heapq.heappop(data), heapq.heappushpop(data, 4), sorted(data))
print(list(heapq.merge([1, 4, 7], [2, 5, 8])))
grades = [60, 70, 80, 90]
letters = "FDCBA"
print([letters[bisect.bisect(grades, s)] for s in [55, 70, 85, 99]])
sorted_list = [1, 3, 5]
bisect.insort(sorted_list, 4)
print(sorted_list, bisect.bisect_left(sorted_list, 3), bisect.bisect_right(sorted_list, 3))
final_answer(sorted_list)
