from dataclasses import dataclass, field, asdict

@dataclass
class LineItem:
    name: str
    price: float
    qty: int = 1

    def total(self):
        return self.price * self.qty

@dataclass
class Order:
    customer: str
    items: list = field(default_factory=list)

    def add(self, name, price, qty=1):
        self.items.append(LineItem(name, price, qty))

    def total(self):
        return round(sum(i.total() for i in self.items), 2)

order = Order("acme")
order.add("bolt", 0.25, 40)
order.add("nut", 0.1, 40)
order.add("drill", 89.99)
print(order.items[0])
print(asdict(order.items[2]))
final_answer(order.total())
