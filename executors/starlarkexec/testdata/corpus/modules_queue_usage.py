import queue

tasks = queue.Queue()
for t in ["parse", "index", "report"]:
    tasks.put(t)
print(tasks.qsize(), tasks.empty())
done = []
while not tasks.empty():
    done.append(tasks.get())
print(done)
pq = queue.PriorityQueue()
for prio, name in [(3, "low"), (1, "urgent"), (2, "normal")]:
    pq.put((prio, name))
order = [pq.get()[1] for _ in range(pq.qsize())]
print(order)
stack = queue.LifoQueue()
for i in range(3):
    stack.put(i)
print([stack.get() for _ in range(3)])
final_answer(order)
