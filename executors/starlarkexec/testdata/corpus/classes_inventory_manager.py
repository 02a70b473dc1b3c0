class Product:
    def __init__(self, sku, name, price, qty=0):
        self.sku, self.name, self.price, self.qty = sku, name, price, qty

    @property
    def value(self):
        return self.price * self.qty

class Inventory:
    def __init__(self):
        self.products = {}

    def add(self, product):
        self.products[product.sku] = product

    def restock(self, sku, qty):
        self.products[sku].qty += qty

    def low_stock(self, threshold=5):
        return [p.name for p in self.products.values() if p.qty < threshold]

    def total_value(self):
        return sum(p.value for p in self.products.values())

inv = Inventory()
inv.add(Product("A1", "pen", 1.5, 100))
inv.add(Product("B2", "stapler", 12.0, 3))
inv.add(Product("C3", "paper", 4.25, 2))
inv.restock("C3", 10)
print("low stock:", inv.low_stock())
final_answer(inv.total_value())
