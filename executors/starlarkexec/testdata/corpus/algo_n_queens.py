def solve(n):
    solutions = []
    def place(row, cols, diag1, diag2, board):
        if row == n:
            solutions.append(board[:])
            return
        for c in range(n):
            if c in cols or row - c in diag1 or row + c in diag2:
                continue
            board.append(c)
            place(row + 1, cols | {c}, diag1 | {row - c}, diag2 | {row + c}, board)
            board.pop()
    place(0, set(), set(), set(), [])
    return solutions

sols = solve(6)
print(len(sols), "solutions for 6 queens")
for row in sols[0]:
    print("".join("Q" if i == row else "." for i in range(6)))
final_answer(len(solve(8)))
