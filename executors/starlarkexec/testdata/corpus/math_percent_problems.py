original_price = 80.0
discounted = original_price * (1 - 0.25)
with_tax = discounted * 1.08
print(f"after 25% off: {discounted:.2f}, with 8% tax: {with_tax:.2f}")
increase = (120 - 96) / 96 * 100
print(f"percent increase from 96 to 120: {increase:.1f}%")
share = 45 / 180
print(f"45 of 180 is {share:.0%}")
reverse = 63 / (1 - 0.3)
print("price before a 30% discount that ends at 63:", round(reverse, 2))
final_answer(round(with_tax, 2))
