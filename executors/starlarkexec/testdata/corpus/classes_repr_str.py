class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Point({self.x}, {self.y})"

    def __str__(self):
        return f"({self.x}, {self.y})"

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)

p = Point(1, 2)
print(p)
print(repr(p), str(p), f"{p}", f"{p!r}")
print([p, Point(3, 4)])
print(p == Point(1, 2), p != Point(2, 1), p in [Point(1, 2)])
final_answer(p)
