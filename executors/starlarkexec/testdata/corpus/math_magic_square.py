def magic_square(n):
    square = [[0] * n for _ in range(n)]
    i, j = 0, n // 2
    for k in range(1, n * n + 1):
        square[i][j] = k
        ni, nj = (i - 1) % n, (j + 1) % n
        if square[ni][nj]:
            ni, nj = (i + 1) % n, j
        i, j = ni, nj
    return square

sq = magic_square(5)
for row in sq:
    print(" ".join(f"{x:2d}" for x in row))
sums = {sum(r) for r in sq} | {sum(c) for c in zip(*sq)}
sums.add(sum(sq[i][i] for i in range(5)))
print("all sums:", sums)
final_answer(sums.pop())
