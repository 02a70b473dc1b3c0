board = [
    "534678912", "672195348", "198342567",
    "859761423", "426853791", "713924856",
    "961537284", "287419635", "345286179",
]
grid = [[int(c) for c in row] for row in board]
rows_ok = all(sorted(r) == list(range(1, 10)) for r in grid)
cols_ok = all(sorted(c) == list(range(1, 10)) for c in zip(*grid))
boxes_ok = all(
    sorted(grid[r][c] for r in range(br, br + 3) for c in range(bc, bc + 3)) == list(range(1, 10))
    for br in range(0, 9, 3) for bc in range(0, 9, 3)
)
print(rows_ok, cols_ok, boxes_ok)
final_answer(rows_ok and cols_ok and boxes_ok)
