grid = [[3, 8, 1], [9, 2, 7], [4, 6, 5]]

def search(target):
    for r, row in enumerate(grid):
        for c, v in enumerate(row):
            if v == target:
                print(f"found {target} at ({r}, {c})")
                final_answer((r, c))
    print("not found")

search(7)
final_answer("unreachable")
