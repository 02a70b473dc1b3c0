counter = 0
log = []

def record(event):
    global counter
    counter += 1
    log.append(f"{counter}: {event}")

for e in ["start", "load", "process", "stop"]:
    record(e)
print(counter)
print(log)

def reset():
    global counter, log
    counter, log = 0, []

reset()
final_answer((counter, log))
