import math

angles = [0, 30, 45, 60, 90, 180]
for deg in angles:
    rad = math.radians(deg)
    print(f"{deg:>3}° sin={math.sin(rad):.4f} cos={math.cos(rad):.4f}")
hyp = math.hypot(3, 4)
print("hypot:", hyp, "atan2:", round(math.degrees(math.atan2(1, 1)), 6))
print(math.pi, math.e, math.tau, math.inf, -math.inf, math.isnan(math.nan))
final_answer(round(math.sin(math.pi / 6), 12))
