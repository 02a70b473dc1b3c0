graph = {1: [2], 2: [3], 3: [4, 5], 4: [2], 5: [], 6: [5]}
WHITE, GRAY, BLACK = 0, 1, 2
color = {n: WHITE for n in graph}
cycle = []
def visit(n, stack):
    color[n] = GRAY
    stack.append(n)
    for m in graph[n]:
        if color[m] == GRAY:
            cycle.extend(stack[stack.index(m):])
            return True
        if color[m] == WHITE and visit(m, stack):
            return True
    stack.pop()
    color[n] = BLACK
    return False

found = any(visit(n, []) for n in graph if color[n] == WHITE)
print("cycle found:", found, cycle)
final_answer(cycle)
