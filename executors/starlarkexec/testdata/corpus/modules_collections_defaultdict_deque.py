from collections import defaultdict, deque

graph = defaultdict(list)
for a, b in [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("d", "e")]:
    graph[a].append(b)
print(dict(graph), graph["zzz"], "zzz" in graph)
counts = defaultdict(int)
for word in "one two one three two one".split():
    counts[word] += 1
print(counts)
d = deque([1, 2, 3], maxlen=4)
d.append(4)
d.append(5)
d.appendleft(0)
print(d, d[0], d[-1], len(d))
d.rotate(1)
print(d, list(d), d.popleft(), d.pop())
nested = defaultdict(lambda: defaultdict(int))
nested["x"]["y"] += 2
print({k: dict(v) for k, v in nested.items()})
final_answer(dict(counts))
