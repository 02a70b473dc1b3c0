import statistics

readings = [10.1, 10.3, 9.8, 10.0, 25.7, 10.2, 9.9, 10.4, -3.2, 10.1]
mean = statistics.mean(readings)
stdev = statistics.stdev(readings)
print(f"mean={mean:.3f} stdev={stdev:.3f}")
outliers = [r for r in readings if abs(r - mean) > 1.5 * stdev]
clean = [r for r in readings if r not in outliers]
print("outliers:", outliers)
print("clean mean:", round(statistics.mean(clean), 4))
final_answer(outliers)
