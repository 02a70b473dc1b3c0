def rotate(m):
    return [list(row) for row in zip(*m[::-1])]

m = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
r = m
for i in range(1, 5):
    r = rotate(r)
    print(f"after {i * 90} degrees: {r}")
print(r == m)
final_answer(rotate(m))
