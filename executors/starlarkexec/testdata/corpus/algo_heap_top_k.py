import heapq

scores = {"ana": 88, "ben": 92, "cid": 75, "dot": 92, "eli": 67, "fin": 99, "gil": 81}
top3 = heapq.nlargest(3, scores.items(), key=lambda kv: kv[1])
bottom2 = heapq.nsmallest(2, scores, key=scores.get)
print("top 3:", top3)
print("bottom 2:", bottom2)
heap = []
for name, s in scores.items():
    heapq.heappush(heap, (-s, name))
order = [heapq.heappop(heap)[1] for _ in range(len(heap))]
print(order)
final_answer(order[:3])
