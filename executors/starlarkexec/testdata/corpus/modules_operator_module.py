import operator
from functools import reduce

rows = [{"name": "b", "age": 30}, {"name": "a", "age": 25}, {"name": "c", "age": 30}]
print(sorted(rows, key=operator.itemgetter("age", "name")))
pairs = [(1, "x"), (0, "y")]
print(sorted(pairs, key=operator.itemgetter(0)), list(map(operator.itemgetter(1), pairs)))
print(operator.add(2, 3), operator.mul(4, 5), operator.neg(3), operator.truediv(7, 2))
print(reduce(operator.or_, [{1}, {2}, {3}]), operator.contains([1, 2], 2))
upper = operator.methodcaller("upper")
print(upper("abc"), operator.attrgetter("real")(3))
final_answer(sorted(rows, key=operator.itemgetter("name"))[0])
