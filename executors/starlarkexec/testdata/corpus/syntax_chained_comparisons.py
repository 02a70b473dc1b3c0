calls = []
def v(n):
    calls.append(n)
    return n

x = 5
print(1 < x < 10, 1 < x > 10, 0 <= x <= 5 < 6, 10 > x >= 5)
print(v(1) < v(2) < v(3))
print(calls)
calls.clear()
print(v(3) < v(2) < v(1))
print(calls)
print("a" < "b" < "c", 1 == 1.0 == True, [1] < [1, 0] <= [2])
final_answer([n for n in range(20) if 3 < n % 7 < 6])
