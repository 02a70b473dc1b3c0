class Money:
    currency_symbols = {"USD": "$", "EUR": "€"}

    def __init__(self, cents, currency="USD"):
        self.cents = cents
        self.currency = currency

    @classmethod
    def from_string(cls, text):
        symbol, amount = text[0], text[1:]
        currency = {v: k for k, v in cls.currency_symbols.items()}[symbol]
        return cls(round(float(amount) * 100), currency)

    @staticmethod
    def format_cents(cents):
        return f"{cents // 100}.{cents % 100:02d}"

    def __str__(self):
        return self.currency_symbols[self.currency] + self.format_cents(self.cents)

m = Money.from_string("€12.5")
print(m, m.cents, m.currency)
print(Money.format_cents(1999), str(Money(5)))
final_answer(str(m))
