import math

class Shape:
    def __init__(self, name):
        self.name = name

    def area(self):
        return 0

    def describe(self):
        return f"{self.name} with area {self.area():.2f}"

class Circle(Shape):
    def __init__(self, r):
        super().__init__("circle")
        self.r = r

    def area(self):
        return math.pi * self.r ** 2

class Rect(Shape):
    def __init__(self, w, h):
        super().__init__("rect")
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h

shapes = [Circle(1), Rect(2, 3), Circle(2.5)]
for s in shapes:
    print(s.describe())
print(isinstance(shapes[0], Shape), isinstance(shapes[1], Circle))
final_answer(round(sum(s.area() for s in shapes), 3))
