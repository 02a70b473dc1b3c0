class Stack:
    def __init__(self):
        self._items = []

    def push(self, item):
        self._items.append(item)

    def pop(self):
        if not self._items:
            raise IndexError("pop from empty stack")
        return self._items.pop()

    def peek(self):
        return self._items[-1] if self._items else None

    def __len__(self):
        return len(self._items)

    def __bool__(self):
        return bool(self._items)

s = Stack()
for token in "3 4 + 2 *".split():
    if token.isdigit():
        s.push(int(token))
    else:
        b, a = s.pop(), s.pop()
        s.push(a + b if token == "+" else a * b)
print(len(s), s.peek(), bool(s))
final_answer(s.pop())
