prices = {"apple": 1.2, "pear": None, "plum": 0.8}
total = 0
for fruit, price in prices.items():
    print("adding", fruit)
    total += price
final_answer(total)
