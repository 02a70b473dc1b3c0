from collections import OrderedDict, namedtuple

od = OrderedDict()
od["z"] = 1
od["a"] = 2
od["m"] = 3
od.move_to_end("z")
print(od, list(od.keys()))
od.move_to_end("m", last=False)
print(od.popitem(), od.popitem(last=False), od)
Point = namedtuple("Point", "x y")
p = Point(3, y=4)
print(p, p.x + p.y, p._fields, Point._make([5, 6]), p == (3, 4))
Row = namedtuple("Row", ["id", "name", "score"], defaults=[0.0])
print(Row(1, "a"), Row(2, "b", 9.5)._asdict())
final_answer(p._replace(x=10))
