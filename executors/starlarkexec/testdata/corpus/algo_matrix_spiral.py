def spiral(matrix):
    out = []
    while matrix:
        out.extend(matrix.pop(0))
        if matrix and matrix[0]:
            for row in matrix:
                out.append(row.pop())
        if matrix:
            out.extend(matrix.pop()[::-1])
        if matrix and matrix[0]:
            for row in matrix[::-1]:
                out.append(row.pop(0))
    return out

m = [[i * 4 + j + 1 for j in range(4)] for i in range(4)]
for row in m:
    print(row)
final_answer(spiral(m))
