class BankAccount:
    interest_rate = 0.02

    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance
        self.history = []

    def deposit(self, amount):
        self.balance += amount
        self.history.append(("deposit", amount))
        return self.balance

    def withdraw(self, amount):
        if amount > self.balance:
            raise ValueError("insufficient funds")
        self.balance -= amount
        self.history.append(("withdraw", amount))
        return self.balance

    def add_interest(self):
        self.balance = round(self.balance * (1 + self.interest_rate), 2)

acct = BankAccount("Ada", 100)
acct.deposit(50)
acct.withdraw(30)
acct.add_interest()
print(acct.owner, acct.balance, acct.history)
final_answer(acct.balance)
