deps = {
    "app": ["lib", "config"],
    "lib": ["utils"],
    "config": ["utils"],
    "utils": [],
    "tests": ["app"],
}
indegree = {k: 0 for k in deps}
for k, vs in deps.items():
    for v in vs:
        indegree[k] += 1
order = []
ready = sorted(k for k, d in indegree.items() if d == 0)
while ready:
    node = ready.pop(0)
    order.append(node)
    for k, vs in deps.items():
        if node in vs:
            indegree[k] -= 1
            if indegree[k] == 0:
                ready.append(k)
                ready.sort()
print("build order:", " -> ".join(order))
final_answer(order)
