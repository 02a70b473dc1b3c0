matrix = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
flat = [x for row in matrix for x in row]
evens = [x for row in matrix for x in row if x % 2 == 0]
pairs = [(i, j) for i in range(3) for j in range(i)]
squares = {n: n * n for n in range(6) if n % 2}
inverse = {v: k for k, v in {"a": 1, "b": 2}.items()}
table = [[r * c for c in range(1, 4)] for r in range(1, 4)]
print(flat, evens, pairs, squares, inverse, table, sep="\n")
final_answer(table)
