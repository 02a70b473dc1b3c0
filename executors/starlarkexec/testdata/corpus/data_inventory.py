inventory = {"apples": 50, "bananas": 0, "cherries": 200, "dates": 15}
orders = [("apples", 20), ("bananas", 5), ("dates", 15), ("apples", 40), ("cherries", 10)]
fulfilled, backordered = [], []
for item, qty in orders:
    stock = inventory.get(item, 0)
    if stock >= qty:
        inventory[item] = stock - qty
        fulfilled.append((item, qty))
    else:
        backordered.append((item, qty - stock))
        inventory[item] = 0
print("Fulfilled:", fulfilled)
print("Backordered:", backordered)
print("Remaining:", inventory)
empty = [k for k, v in inventory.items() if v == 0]
final_answer(sorted(empty))
