parent = {}
def find(x):
    parent.setdefault(x, x)
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x

def union(a, b):
    ra, rb = find(a), find(b)
    if ra != rb:
        parent[rb] = ra

friendships = [("ann", "bob"), ("bob", "cid"), ("dan", "eve"), ("fay", "fay"), ("eve", "gus")]
for a, b in friendships:
    union(a, b)
groups = {}
for person in list(parent):
    groups.setdefault(find(person), []).append(person)
circles = sorted(sorted(g) for g in groups.values())
print(circles)
final_answer(len(circles))
