# A typical model-written action: summarise sales data and answer.
import json
import math

sales = [
    {"region": "north", "month": "2026-01", "units": 120, "price": 9.5},
    {"region": "south", "month": "2026-01", "units": 95, "price": 11.0},
    {"region": "north", "month": "2026-02", "units": 140, "price": 9.5},
    {"region": "east", "month": "2026-02", "units": 60, "price": 14.25},
    {"region": "south", "month": "2026-02", "units": 130, "price": 11.0},
]

revenue = {}
for row in sales:
    revenue[row["region"]] = revenue.get(row["region"], 0) + row["units"] * row["price"]

best = max(revenue, key=lambda region: revenue[region])
spread = math.sqrt(sum((v - sum(revenue.values()) / len(revenue)) ** 2 for v in revenue.values()) / len(revenue))
print("revenue by region:", json.dumps(revenue, sort_keys=True))
print(f"best region: {best} with {revenue[best]:,.2f}; spread {spread:.1f}")
final_answer({"best": best, "revenue": round(revenue[best], 2)})
