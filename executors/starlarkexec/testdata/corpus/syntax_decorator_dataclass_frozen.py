from dataclasses import dataclass

@dataclass(frozen=True)
class Point:
    x: float
    y: float

    def distance_to(self, other: "Point") -> float:
        return ((self.x - other.x) ** 2 + (self.y - other.y) ** 2) ** 0.5

a, b = Point(0, 0), Point(3, 4)
print(a, b, a.distance_to(b))
print(len({a, b, Point(0, 0)}))
try:
    a.x = 10
except Exception as e:
    print(type(e).__name__)
final_answer(b)
