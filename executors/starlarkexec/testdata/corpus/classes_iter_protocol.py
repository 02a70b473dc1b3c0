class Countdown:
    def __init__(self, start):
        self.current = start

    def __iter__(self):
        return self

    def __next__(self):
        if self.current <= 0:
            raise StopIteration
        self.current -= 1
        return self.current + 1

print(list(Countdown(5)))
total = 0
for n in Countdown(4):
    total += n
print(total, sum(Countdown(3)), max(Countdown(6)))
final_answer(total)
