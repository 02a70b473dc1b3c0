# Exceptions raised by user iterators reach the code consuming them.
class Faulty:
    def __iter__(self):
        return self
    def __next__(self):
        raise KeyError("broken iterator")
for f in [lambda: [p for p in enumerate(Faulty())], lambda: list(zip(Faulty(), [1])), lambda: dict.fromkeys(Faulty()), lambda: set(Faulty()), lambda: tuple(Faulty()), lambda: ",".join(Faulty()), lambda: any(Faulty()), lambda: max(Faulty()), lambda: list(map(str, Faulty())), lambda: list(filter(None, Faulty())), lambda: list(reversed(Faulty()))]:
    try:
        f()
        print("no error")
    except (KeyError, TypeError) as e:
        print(type(e).__name__, e)
