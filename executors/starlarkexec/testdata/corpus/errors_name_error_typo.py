prices = [19.99, 5.49, 3.75]
total = sum(prices)
print(f"Subtotal: {total:.2f}")
tax = totl * 0.08
final_answer(total + tax)
