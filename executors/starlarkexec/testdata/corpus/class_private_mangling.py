class Account:
    __count = 0
    def __init__(self, balance):
        self.__balance = balance
        Account.__count += 1
    def deposit(self, x):
        self.__balance += x
        return self.__check()
    def __check(self):
        return self.__balance >= 0
    @property
    def balance(self):
        return self.__balance
    @classmethod
    def count(cls):
        return cls.__count
    def helpers(self):
        f = lambda: self.__balance * 2
        def inner(__k=3):
            return self.__balance + __k
        return f(), inner(), [self.__balance + i for i in range(2)]
    def __repr__(self):
        return f"Account({self.__balance})"
a = Account(5)
print(a.deposit(3), a.balance, Account.count(), a._Account__balance, a.helpers(), a)
print(getattr(a, "_Account__balance"), hasattr(a, "_Account__check"), a._Account__check())
try:
    print(a.__balance)
except AttributeError as e:
    print("AttributeError", e)
class Sub(Account):
    def peek(self):
        try:
            return self.__balance
        except AttributeError as e:
            return "AttributeError " + str(e)
print(Sub(1).peek(), Account.count())
class _Hidden:
    def __init__(self):
        self.__x = 1
    def get(self):
        return self.__x
h = _Hidden()
print(h.get(), h._Hidden__x)
class Stack:
    def __init__(self):
        self.__items = []
    def push(self, x):
        self.__items.append(x)
        return self
    def __len__(self):
        return len(self.__items)
s = Stack().push(1).push(2)
print(len(s), s._Stack__items)
final_answer("done")
