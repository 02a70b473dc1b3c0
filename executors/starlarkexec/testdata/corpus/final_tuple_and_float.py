import math
area = math.pi * 2 ** 2
circumference = 2 * math.pi * 2
print(f"area={area:.3f} circumference={circumference:.3f}")
final_answer((round(area, 4), round(circumference, 4), area > circumference))
