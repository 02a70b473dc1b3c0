from collections import deque

grid = [
    "S.#.....",
    ".##.###.",
    "....#...",
    ".##...#E",
]
rows, cols = len(grid), len(grid[0])
start = next((r, c) for r in range(rows) for c in range(cols) if grid[r][c] == "S")
queue = deque([(start, 0)])
seen = {start}
answer = None
while queue:
    (r, c), dist = queue.popleft()
    if grid[r][c] == "E":
        answer = dist
        break
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        nr, nc = r + dr, c + dc
        if 0 <= nr < rows and 0 <= nc < cols and grid[nr][nc] != "#" and (nr, nc) not in seen:
            seen.add((nr, nc))
            queue.append(((nr, nc), dist + 1))
print("visited cells:", len(seen))
final_answer(answer)
