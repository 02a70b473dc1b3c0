import math

def solve(a, b, c):
    disc = b * b - 4 * a * c
    if disc < 0:
        return ()
    if disc == 0:
        return (-b / (2 * a),)
    root = math.sqrt(disc)
    return tuple(sorted(((-b - root) / (2 * a), (-b + root) / (2 * a))))

for coeffs in [(1, -3, 2), (1, 2, 1), (1, 0, 1), (2, -4, -6), (1, -1, -1)]:
    print(coeffs, "->", solve(*coeffs))
final_answer(solve(1, -1, -1))
