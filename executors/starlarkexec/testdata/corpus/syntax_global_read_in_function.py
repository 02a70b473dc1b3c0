TAX_RATE = 0.2
DISCOUNTS = {"gold": 0.1, "silver": 0.05}

def price_after(amount, tier=None):
    discounted = amount * (1 - DISCOUNTS.get(tier, 0))
    return round(discounted * (1 + TAX_RATE), 2)

print(price_after(100), price_after(100, "gold"), price_after(100, "bronze"))
TAX_RATE = 0.25
print(price_after(100))
final_answer(price_after(80, "silver"))
