from dataclasses import dataclass, field

@dataclass
class Task:
    title: str
    priority: int = 3
    tags: list = field(default_factory=list)
    done: bool = False

tasks = [Task("write report", 1, ["work"]), Task("buy milk"), Task("fix bug", 2, ["work", "urgent"])]
tasks[1].done = True
print(tasks[0])
todo = sorted((t for t in tasks if not t.done), key=lambda t: t.priority)
print([t.title for t in todo])
print(Task("a") == Task("a"), Task("a") == Task("b"))
final_answer(todo[0])
