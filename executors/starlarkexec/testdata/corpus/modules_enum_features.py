from enum import Enum, IntEnum, auto

class Color(Enum):
    RED = auto()
    GREEN = auto()
    BLUE = auto()

class Priority(IntEnum):
    LOW = 1
    MEDIUM = 5
    HIGH = 10

print(Color.RED, Color.RED.value, Color(2), list(Color))
print(Priority.HIGH > Priority.LOW, Priority.MEDIUM + 1, sorted([Priority.HIGH, Priority.LOW]))
print(Color.GREEN.name, Color["BLUE"], Color.RED is Color.RED, Color.RED == 1)
tasks = {"deploy": Priority.HIGH, "docs": Priority.LOW}
print(max(tasks, key=tasks.get), [p.name for p in Priority])
final_answer([c.name for c in Color])
