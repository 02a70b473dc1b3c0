from enum import Enum

class Status(Enum):
    PENDING = "pending"
    ACTIVE = "active"
    CLOSED = "closed"

tickets = [("T1", Status.ACTIVE), ("T2", Status.PENDING), ("T3", Status.ACTIVE), ("T4", Status.CLOSED)]
counts = {}
for tid, status in tickets:
    counts[status.name] = counts.get(status.name, 0) + 1
print(counts)
print(Status("closed"), Status.ACTIVE.value, Status["PENDING"], repr(Status.CLOSED))
print([s.name for s in Status], Status.ACTIVE == Status.ACTIVE, len(Status))
final_answer(counts)
