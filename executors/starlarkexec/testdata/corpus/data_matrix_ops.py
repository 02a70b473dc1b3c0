a = [[1, 2, 3], [4, 5, 6]]
b = [[7, 8], [9, 10], [11, 12]]
rows, inner, cols = len(a), len(b), len(b[0])
product = [[sum(a[i][k] * b[k][j] for k in range(inner)) for j in range(cols)] for i in range(rows)]
print("A x B =", product)
transposed = [list(row) for row in zip(*a)]
print("A^T =", transposed)
trace = sum(product[i][i] for i in range(min(len(product), len(product[0]))))
print("trace:", trace)
final_answer(product)
