class Node:
    def __init__(self, value, next=None):
        self.value = value
        self.next = next

class LinkedList:
    def __init__(self, values=()):
        self.head = None
        for v in reversed(values):
            self.head = Node(v, self.head)

    def to_list(self):
        out, node = [], self.head
        while node:
            out.append(node.value)
            node = node.next
        return out

    def reverse(self):
        prev, node = None, self.head
        while node:
            node.next, prev, node = prev, node, node.next
        self.head = prev

ll = LinkedList([1, 2, 3, 4])
print(ll.to_list())
ll.reverse()
print(ll.to_list())
final_answer(ll.to_list())
