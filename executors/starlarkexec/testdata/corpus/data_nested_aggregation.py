orders = {
    "order-1": {"customer": "acme", "lines": [{"sku": "A", "qty": 2, "unit": 9.99}, {"sku": "B", "qty": 1, "unit": 24.5}]},
    "order-2": {"customer": "globex", "lines": [{"sku": "A", "qty": 10, "unit": 9.49}]},
    "order-3": {"customer": "acme", "lines": [{"sku": "C", "qty": 3, "unit": 4.0}, {"sku": "A", "qty": 1, "unit": 9.99}]},
}
per_customer = {}
sku_qty = {}
for oid, order in orders.items():
    total = sum(l["qty"] * l["unit"] for l in order["lines"])
    per_customer[order["customer"]] = per_customer.get(order["customer"], 0) + total
    for l in order["lines"]:
        sku_qty[l["sku"]] = sku_qty.get(l["sku"], 0) + l["qty"]
    print(f"{oid}: {total:.2f}")
print({k: round(v, 2) for k, v in per_customer.items()})
print(sorted(sku_qty.items(), key=lambda kv: -kv[1]))
final_answer(round(per_customer["acme"], 2))
