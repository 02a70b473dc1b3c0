import math

shapes = [("circle", 3), ("square", 4), ("rectangle", (3, 5)), ("triangle", (3, 4, 5))]
areas = {}
for kind, dims in shapes:
    if kind == "circle":
        area = math.pi * dims ** 2
    elif kind == "square":
        area = dims ** 2
    elif kind == "rectangle":
        area = dims[0] * dims[1]
    else:
        a, b, c = dims
        s = (a + b + c) / 2
        area = math.sqrt(s * (s - a) * (s - b) * (s - c))
    areas[kind] = round(area, 3)
    print(f"{kind:<10} {areas[kind]:>8}")
final_answer(areas)
