class Ticket:
    issued = 0

    def __init__(self, holder):
        Ticket.issued += 1
        self.number = Ticket.issued
        self.holder = holder

    def __repr__(self):
        return f"<Ticket #{self.number} for {self.holder}>"

tickets = [Ticket(name) for name in ["ann", "bo", "cy"]]
print(tickets)
print(Ticket.issued, tickets[0].issued)
final_answer(Ticket.issued)
