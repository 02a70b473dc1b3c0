print(sum([1, 2, 3]), sum([0.1, 0.2, 0.3]), sum([], 10), sum(range(5), start=100))
print(sum([[1], [2, 3]], []), sum((x * 2 for x in range(4))))
print(sum([True, False, True]), sum([1, 2.5]), sum({1: "a", 2: "b"}))
totals = {"q1": 100.25, "q2": 99.75}
print(sum(totals.values()), round(sum(v * 1.1 for v in totals.values()), 3))
final_answer(sum(i * i for i in range(10)))
