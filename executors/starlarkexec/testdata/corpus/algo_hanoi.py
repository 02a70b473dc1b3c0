moves = []
def hanoi(n, src, dst, via):
    if n == 0:
        return
    hanoi(n - 1, src, via, dst)
    moves.append((n, src, dst))
    hanoi(n - 1, via, dst, src)

hanoi(4, "A", "C", "B")
print(len(moves), "moves")
for m in moves[:5]:
    print("move disk %d from %s to %s" % m)
final_answer(len(moves) == 2 ** 4 - 1)
