import heapq

graph = {
    "A": {"B": 4, "C": 2},
    "B": {"C": 5, "D": 10},
    "C": {"E": 3},
    "D": {"F": 11},
    "E": {"D": 4},
    "F": {},
}
def dijkstra(source):
    dist = {node: float("inf") for node in graph}
    prev = {}
    dist[source] = 0
    heap = [(0, source)]
    while heap:
        d, node = heapq.heappop(heap)
        if d > dist[node]:
            continue
        for nxt, w in graph[node].items():
            if d + w < dist[nxt]:
                dist[nxt] = d + w
                prev[nxt] = node
                heapq.heappush(heap, (dist[nxt], nxt))
    return dist, prev

dist, prev = dijkstra("A")
print(dist)
path, node = [], "F"
while node != "A":
    path.append(node)
    node = prev[node]
path.append("A")
final_answer(path[::-1])
