sales = [
    {"region": "north", "product": "widget", "units": 120, "price": 2.5},
    {"region": "south", "product": "widget", "units": 80, "price": 2.5},
    {"region": "north", "product": "gadget", "units": 45, "price": 10.0},
    {"region": "east", "product": "gadget", "units": 60, "price": 9.5},
    {"region": "south", "product": "doohickey", "units": 200, "price": 0.75},
]
revenue_by_region = {}
for row in sales:
    revenue = row["units"] * row["price"]
    revenue_by_region[row["region"]] = revenue_by_region.get(row["region"], 0) + revenue
print("Revenue by region:", revenue_by_region)
best = max(revenue_by_region, key=revenue_by_region.get)
print(f"Best region: {best} with ${revenue_by_region[best]:,.2f}")
total = sum(revenue_by_region.values())
print(f"Total revenue: {total}")
final_answer(best)
