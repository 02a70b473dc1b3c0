def step(live):
    counts = {}
    for (r, c) in live:
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if dr or dc:
                    counts[(r + dr, c + dc)] = counts.get((r + dr, c + dc), 0) + 1
    return {cell for cell, n in counts.items() if n == 3 or (n == 2 and cell in live)}

glider = {(0, 1), (1, 2), (2, 0), (2, 1), (2, 2)}
state = glider
for gen in range(4):
    state = step(state)
    print(gen + 1, sorted(state))
shift = (min(r for r, _ in state) - min(r for r, _ in glider), min(c for _, c in state) - min(c for _, c in glider))
final_answer(shift)
