report = []
for a, b in [(1, 0), ("x", 2), (8, 2), (None, 1)]:
    try:
        try:
            result = a / b
        except ZeroDivisionError:
            result = float("inf")
            report.append("inf")
        else:
            report.append(result)
    except TypeError as e:
        report.append("type: " + str(e))
print(report)
final_answer(report)
