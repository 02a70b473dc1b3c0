report = {
    "summary": "3 regions analysed",
    "regions": [("north", 1200.5), ("south", 980.0), ("east", 0)],
    "flags": {"complete": True, "warnings": None},
    "ids": {7},
    "ratio": 1 / 3,
}
print(len(report), "keys")
final_answer(report)
