conversions = {("km", "mi"): 0.621371, ("kg", "lb"): 2.20462, ("l", "gal"): 0.264172}
measurements = [(42.195, "km"), (70, "kg"), (3.5, "l"), (10, "m")]
converted = []
for value, unit in measurements:
    target = next((t for (s, t) in conversions if s == unit), None)
    if target is None:
        print(f"no conversion for {unit}")
        continue
    result = value * conversions[(unit, target)]
    converted.append((round(result, 2), target))
    print(f"{value} {unit} = {result:.2f} {target}")
final_answer(converted)
