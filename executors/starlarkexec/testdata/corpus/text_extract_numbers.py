import re

report = "Revenue grew 12.5% to $4,210,000 in Q3; costs fell by 3% (from $1.2M). Headcount: 1,045 -> 1,102."
numbers = re.findall(r"-?\d[\d,]*\.?\d*", report)
print(numbers)
clean = [float(n.replace(",", "")) for n in numbers]
print(clean)
money = re.findall(r"\$([\d,.]+)(M?)", report)
print(money)
percents = [float(p) for p in re.findall(r"([\d.]+)%", report)]
final_answer({"percents": percents, "largest": max(clean)})
